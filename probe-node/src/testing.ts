// Shared by the probe-node tests: a config pointed at a simulated world and a request builder.
import type { ProbeSessionRequest } from '@dv/contracts';
import { probeConfigSchema, type ProbeConfig } from './config.ts';
import { createResolver } from './resolve.ts';
import { runSession, type SessionRun } from './session.ts';
import type { PooledConnection } from './pool.ts';
import type { SmtpConnection } from './smtp/connection.ts';

export function testConfig(worldEnv: Record<string, string>, extra: Record<string, string> = {}): ProbeConfig {
  return probeConfigSchema.parse({ ...worldEnv, PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true', ...extra });
}

export function request(domain: string, mx: string[], addresses: string[], more: Partial<ProbeSessionRequest> = {}): ProbeSessionRequest {
  return {
    session_id: `s_${domain}_${Math.random().toString(36).slice(2, 8)}`,
    domain,
    mx_hosts: mx,
    addresses,
    catch_all_probe: true,
    mail_from: 'verify@probe.test',
    source_ip: null,
    // Short enough that a broken case fails fast, long enough for a loaded 2-core machine.
    timeouts: { connectMs: 3_000, greetingMs: 5_000, commandMs: 5_000, sessionMs: 20_000 },
    ...more,
  };
}

/** A session runner bound to one config (and its own DNS cache). */
export function prober(config: ProbeConfig): (req: ProbeSessionRequest) => Promise<SessionRun> {
  const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
  return (req) => runSession(req, { config, nodeId: 'test-node', resolver });
}

/** A pooled connection with just what the pool touches: QUIT goes out (logged), 221 comes back, the close is logged. */
export function fakePooledConnection(name: string, log: string[], host = 'mx.example.test', ip = '192.0.2.1'): PooledConnection {
  const conn = {
    reusable: true,
    adopt: () => undefined,
    send: (commands: { verb: string }[]) => void log.push(`${name} ${commands.map((c) => c.verb).join(' ')}`),
    read: () => Promise.resolve({ code: 221, enhanced: null, lines: ['221 bye'] }),
    destroy: () => void log.push(`${name} closed`),
  } as unknown as SmtpConnection;
  return { conn, host, ip, ext: { pipelining: true, startTls: false, smtputf8: false }, tls: null, useStartTls: false, transactions: 1, errors: 0 };
}
