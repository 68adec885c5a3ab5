import { join } from 'node:path';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type DnsRecordInput, type SmtpHostSpecInput, type WorldHandle, type WorldInput } from '@dv/world';
import type { GatewayHarness } from './harness.ts';

// Live checks for gateway tests, end to end: the simulated internet (the default world plus any
// hosts a test adds), the real scheduler and one probe node as processes, on the gateway harness's
// NATS, Redis and MongoDB. The fake scheduler answers live items from the sandbox table; this one
// probes, so charges, refunds, caching and ETAs are those of the real pipeline.

export interface LiveStack {
  world: WorldHandle;
  scheduler: RunningProcess;
  probe: RunningProcess | undefined;
  startProbe(): Promise<RunningProcess>;
  stopProbe(): Promise<void>;
  stop(): Promise<void>;
}

export interface LiveStackOptions {
  label: string;
  records?: DnsRecordInput[];
  hosts?: SmtpHostSpecInput[];
  /** Scheduler settings on top of the fast test ones. */
  schedulerEnv?: Record<string, string>;
  /** Probe node settings on top of the test ones (LOG_LEVEL, say). */
  probeEnv?: Record<string, string>;
}

export async function startLiveStack(h: GatewayHarness, o: LiveStackOptions): Promise<LiveStack> {
  const logDir = join(REPO_ROOT, '.local', `${o.label}-logs`);
  const base = loadWorld(DEFAULT_WORLD_PATH);
  const input: WorldInput = { ...base, dns: { ...base.dns, records: [...base.dns.records, ...(o.records ?? [])] }, smtp: { ...base.smtp, hosts: [...base.smtp.hosts, ...(o.hosts ?? [])] } };
  const world = await startWorld(input);
  const scheduler = await startServiceProcess('scheduler', {
    env: {
      ...world.env,
      NATS_URL: h.env.NATS_URL!,
      NATS_USERS_DIR: h.env.NATS_USERS_DIR!,
      REDIS_URL: h.env.REDIS_URL!,
      MONGODB_URL: h.env.MONGODB_URL!,
      MONGODB_DB: h.env.MONGODB_DB!,
      REDIS_PREFIX: `${h.env.REDIS_KEY_PREFIX}sch:`,
      DOWNLOAD_SIGNING_SECRET: h.env.DOWNLOAD_SIGNING_SECRET!,
      BATCH_WINDOW_MS: '100',
      LOAD_INTERVAL_MS: '300',
      SWEEP_INTERVAL_MS: '300',
      PROBE_NODE_GONE_MS: '1500',
      DNS_TIMEOUT_MS: '500',
      LOG_LEVEL: 'warn',
      ...o.schedulerEnv,
    },
    logDir,
  });
  const stack: LiveStack = {
    world,
    scheduler,
    probe: undefined,
    async startProbe() {
      stack.probe = await startServiceProcess('probe-node', {
        env: { ...world.env, NATS_URL: h.env.NATS_URL!, NATS_USERS_DIR: h.env.NATS_USERS_DIR!, PROBE_NODE_ID: `${o.label}-node`, PROBE_SOURCE_IPS: '127.0.0.1', PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true', PROBE_HEARTBEAT_INTERVAL_MS: '300', LOG_LEVEL: 'warn', ...o.probeEnv },
        logDir,
      });
      return stack.probe;
    },
    async stopProbe() {
      await stack.probe?.stop(5_000);
      stack.probe = undefined;
    },
    async stop() {
      await stack.stopProbe();
      await scheduler.stop(5_000);
      await world.stop();
    },
  };
  await stack.startProbe();
  return stack;
}

export { until } from '@dv/test-kit';
