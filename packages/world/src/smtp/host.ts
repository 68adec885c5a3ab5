// A scripted MX host listening on its own loopback address.
import net from 'node:net';
import { normalizeIp } from '../names.ts';
import { closeTcp, findFreePort, isAddressInUse, listenTcp, withPortRetry } from '../ports.ts';
import { smtpHostSchema } from '../schema/smtp.ts';
import type { SmtpHostSpecInput } from '../schema.ts';
import { Timers } from '../timers.ts';
import { HostileSession } from './hostile.ts';
import { HostPolicy } from './policy.ts';
import { SmtpSession } from './session.ts';
import type { SessionContext } from './session.ts';
import { StatsRecorder, emptyStats, resetStats } from './stats.ts';
import type { SmtpHostStats } from './stats.ts';
import { simulatedTlsContext } from './tls.ts';

export interface SmtpHostOptions {
  // 0 or absent: any free port.
  port?: number;
  // Base latency of the world, added to the host's own latencyMs and tarpitMs.
  latencyMs?: number;
  // Added for these client addresses only (a slow link to one probe host).
  clientLatencyMs?: Readonly<Record<string, number>>;
}

export interface SmtpHostHandle {
  name: string;
  ip: string;
  port: number;
  // Live object: updated in place while the host runs.
  stats: SmtpHostStats;
  // Forget stats, greylist triplets and rate-limit history.
  reset(): void;
  stop(): Promise<void>;
}

export async function startSmtpHost(input: SmtpHostSpecInput, options: SmtpHostOptions = {}): Promise<SmtpHostHandle> {
  const spec = smtpHostSchema.parse(input);
  const { behaviour } = spec;
  // Made on first use so a world starts fast; warming it now means the first STARTTLS rarely waits.
  if (behaviour.starttls || behaviour.requireStartTls) simulatedTlsContext().catch(() => undefined);
  const stats = emptyStats(spec.name, spec.ip);
  const recorder = new StatsRecorder(stats, behaviour.maxConcurrentSessions);
  const policy = new HostPolicy(spec);
  const timers = new Timers();
  const sessions = new Set<{ destroy(): void }>();
  const replyDelayMs = (options.latencyMs ?? 0) + behaviour.latencyMs + behaviour.tarpitMs;
  let stopped = false;

  const onConnection = (socket: net.Socket): void => {
    if (stopped) {
      socket.destroy();
      return;
    }
    const clientIp = normalizeIp(socket.remoteAddress);
    const ctx: SessionContext = { spec, policy, recorder, timers, replyDelayMs: replyDelayMs + (options.clientLatencyMs?.[clientIp] ?? 0), tlsContext: simulatedTlsContext, clientIp };
    const hostile = behaviour.hostile;
    const session =
      hostile === 'garbage' || hostile === 'flood' || hostile === 'silent' ? new HostileSession(socket, ctx, hostile) : new SmtpSession(socket, ctx);
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
    session.start().catch(() => session.destroy());
  };

  const { server, port } = await withPortRetry(options.port, async (wanted) => {
    const candidate = net.createServer(onConnection);
    return { server: candidate, port: await listenTcp(candidate, wanted, spec.ip) };
  });

  let stopping: Promise<void> | undefined;
  return {
    name: spec.name,
    ip: spec.ip,
    port,
    stats,
    reset() {
      resetStats(stats);
      policy.reset();
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        timers.cancelAll();
        for (const session of sessions) session.destroy();
        await closeTcp(server);
      })();
      return stopping;
    },
  };
}

// Starts every host on one shared port (each on its own IP), as MX hosts all listen on port 25.
export async function startSmtpHosts(specs: SmtpHostSpecInput[], options: SmtpHostOptions = {}): Promise<{ port: number; hosts: SmtpHostHandle[] }> {
  const fixedPort = options.port !== undefined && options.port !== 0 ? options.port : undefined;
  for (let attempt = 0; ; attempt += 1) {
    const port = fixedPort ?? (await findFreePort());
    const hosts: SmtpHostHandle[] = [];
    try {
      for (const spec of specs) hosts.push(await startSmtpHost(spec, { ...options, port }));
      return { port, hosts };
    } catch (error) {
      await Promise.all(hosts.map((host) => host.stop()));
      if (fixedPort !== undefined || !isAddressInUse(error) || attempt >= 20) throw error;
    }
  }
}
