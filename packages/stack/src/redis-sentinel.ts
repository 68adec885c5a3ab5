// Redis with failover for tests (no single Redis to lose): a primary, a replica and three Sentinels (quorum 2) on
// free loopback ports, as the k8s prod overlay runs them. Sentinel is redis-server in sentinel mode
// (`--sentinel`, what Debian's redis-sentinel package starts), so the redis-server package suffices.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { ensureCommand } from './install.ts';
import { freePort, waitForPort } from './ports.ts';
import { startProcess, stopProcess, type Managed } from './process.ts';

const HOST = '127.0.0.1';

export interface SentinelSet {
  /** The name the Sentinels monitor (REDIS_SENTINEL_NAME). */
  readonly name: string;
  /** `host:port` of each Sentinel (REDIS_SENTINELS). */
  readonly sentinels: string[];
  readonly ports: { primary: number; replica: number };
  /** SIGKILL the server on `port` (the primary, to force a failover). */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startSentinelSet(dataDir: string, log: (msg: string) => void = () => undefined, opts: { name?: string; downAfterMs?: number } = {}): Promise<SentinelSet> {
  const bin = ensureCommand('redis-server', 'redis-server', log);
  const name = opts.name ?? 'dv';
  const procs = new Map<number, Managed>();
  const server = async (label: string, port: number, args: string[]) => {
    const dir = join(dataDir, label);
    mkdirSync(dir, { recursive: true });
    const p = startProcess(label, bin, args, dataDir);
    procs.set(port, p);
    await waitForPort(HOST, port, 15_000, () => p.alive());
  };
  const primary = await freePort(HOST);
  const replica = await freePort(HOST);
  const data = (label: string) => ['--bind', HOST, '--dir', join(dataDir, label), '--save', '', '--appendonly', 'no'];
  await server('redis-primary', primary, ['--port', String(primary), ...data('redis-primary')]);
  await server('redis-replica', replica, ['--port', String(replica), '--replicaof', HOST, String(primary), ...data('redis-replica')]);
  const sentinels: string[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort(HOST);
    const dir = join(dataDir, `sentinel-${i}`);
    mkdirSync(dir, { recursive: true });
    // Sentinel rewrites its own file (known replicas and peers, the current epoch): one writable file each.
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(conf, [
      `port ${port}`,
      `bind ${HOST}`,
      `dir ${dir}`,
      `sentinel monitor ${name} ${HOST} ${primary} 2`,
      `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1_000}`,
      // Short: a failover attempt that loses its leader election is retried after twice this.
      `sentinel failover-timeout ${name} 3000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'));
    await server(`sentinel-${i}`, port, [conf, '--sentinel']);
    sentinels.push(`${HOST}:${port}`);
  }
  return {
    name,
    sentinels,
    ports: { primary, replica },
    kill: async (port) => {
      const p = procs.get(port);
      if (!p?.alive()) return;
      p.child.kill('SIGKILL');
      await p.exited;
    },
    stop: async () => {
      await Promise.all([...procs.values()].map((p) => stopProcess(p, 3_000)));
    },
  };
}
