import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { ensureCommand } from './install.ts';
import { execFile, execFileSync } from 'node:child_process';
import { resolveMongod, wineEnv, winePath, type MongodBinary } from './mongod-binary.ts';
import { which } from './install.ts';
import { localNatsAuthorization, natsUsersDir } from './nats-auth.ts';
import { freePort, waitForPort } from './ports.ts';
import { startProcess, stopProcess, type Managed } from './process.ts';

export type ServerName = 'nats' | 'redis' | 'mongodb';

/** One local server on a loopback port; stop/start keep its port and data (tests restart servers under running services). */
export interface ServerHandle {
  readonly name: ServerName;
  readonly port: number;
  readonly url: string;
  readonly pid: () => number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  running(): boolean;
}

const HOST = '127.0.0.1';
type Log = (msg: string) => void;

/** Where a server runs: loopback by default; on a simulated host (../cluster) its address and `ip netns exec` prefix. */
export interface ServerPlacement {
  host: string;
  wrap?: readonly string[];
  /**
   * A wine prefix of mongod's own. Wine's server process makes the sockets, and one wineserver runs
   * per prefix: mongod in a namespace needs a wineserver started in that namespace, so not the
   * shared prefix another stack's mongod may already serve from the machine's own network.
   */
  winePrefix?: string;
}
const LOOPBACK: ServerPlacement = { host: HOST };

abstract class ProcessServer implements ServerHandle {
  abstract readonly name: ServerName;
  abstract readonly url: string;
  readonly port: number;
  protected readonly dataDir: string;
  protected readonly detached: boolean;
  protected readonly host: string;
  protected readonly wrap: readonly string[] | undefined;
  protected proc: Managed | undefined;

  constructor(port: number, dataDir: string, detached: boolean, placement: ServerPlacement) {
    this.port = port;
    this.dataDir = dataDir;
    this.detached = detached;
    this.host = placement.host;
    this.wrap = placement.wrap;
  }

  pid(): number | undefined {
    return this.proc?.alive() ? this.proc.child.pid : undefined;
  }

  running(): boolean {
    return this.proc?.alive() ?? false;
  }

  abstract start(): Promise<void>;

  async stop(): Promise<void> {
    if (this.proc) await stopProcess(this.proc);
    this.proc = undefined;
  }
}

export class NatsServer extends ProcessServer {
  readonly name = 'nats' as const;
  readonly url: string;
  private readonly bin: string;

  constructor(port: number, dataDir: string, log: Log, detached = false, placement: ServerPlacement = LOOPBACK) {
    super(port, dataDir, detached, placement);
    this.url = `nats://${placement.host}:${port}`;
    this.bin = ensureCommand('nats-server', 'nats-server', log);
  }

  async start(): Promise<void> {
    const store = join(this.dataDir, 'nats');
    mkdirSync(store, { recursive: true });
    // The bus's users and permissions (nats-auth.ts); the flags below set everything else.
    const auth = join(this.dataDir, 'nats-auth.conf');
    writeFileSync(auth, localNatsAuthorization(natsUsersDir(this.dataDir), true), { mode: 0o600 });
    this.proc = startProcess('nats', this.bin, ['-c', auth, '-a', this.host, '-p', String(this.port), '-js', '-sd', store, '-n', `dv-${this.port}`], this.dataDir, { detached: this.detached, wrap: this.wrap });
    const proc = this.proc;
    await waitForPort(this.host, this.port, 15_000, () => proc.alive());
  }
}

export class RedisServer extends ProcessServer {
  readonly name = 'redis' as const;
  readonly url: string;
  private readonly bin: string;

  constructor(port: number, dataDir: string, log: Log, detached = false, placement: ServerPlacement = LOOPBACK) {
    super(port, dataDir, detached, placement);
    this.url = `redis://${placement.host}:${port}`;
    this.bin = ensureCommand('redis-server', 'redis-server', log);
  }

  async start(): Promise<void> {
    const dir = join(this.dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    // Append-only persistence keeps politeness and retry state across a Redis restart, as in production.
    // Protected mode refuses every non-loopback client of a password-less server: on a simulated
    // host (../cluster) the clients are the other hosts of its private bridge.
    this.proc = startProcess('redis', this.bin, ['--bind', this.host, '--port', String(this.port), '--dir', dir, '--save', '', '--appendonly', 'yes', '--protected-mode', this.host === HOST ? 'yes' : 'no'], this.dataDir, { detached: this.detached, wrap: this.wrap });
    const proc = this.proc;
    await waitForPort(this.host, this.port, 15_000, () => proc.alive());
    await waitForRedisPong(this.host, this.port);
  }
}

async function waitForRedisPong(host: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const pong = await new Promise<boolean>((resolve) => {
      const sock = connect({ host, port }, () => sock.write('PING\r\n'));
      sock.once('data', (d) => {
        sock.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      sock.once('error', () => resolve(false));
    });
    if (pong) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis on port ${port} never answered PING`);
}

export class MongoServer extends ProcessServer {
  readonly name = 'mongodb' as const;
  readonly url: string;
  private readonly binary: MongodBinary;

  private readonly cacheGb: number;

  constructor(port: number, dataDir: string, cacheDir: string, log: Log, detached = false, placement: ServerPlacement = LOOPBACK, cacheGb = 0.25) {
    super(port, dataDir, detached, placement);
    if (!(cacheGb > 0)) throw new Error(`mongod's cache must be a positive number of GB, got ${cacheGb}`);
    this.cacheGb = cacheGb;
    this.url = `mongodb://${placement.host}:${port}/?replicaSet=rs0&directConnection=true`;
    const binary = resolveMongod(cacheDir, log);
    this.binary = binary.kind === 'wine' && placement.winePrefix ? { ...binary, prefix: ownPrefix(binary.prefix, placement.winePrefix) } : binary;
  }

  async start(): Promise<void> {
    const dbPath = join(this.dataDir, 'mongodb');
    mkdirSync(dbPath, { recursive: true });
    const args = ['--bind_ip', this.host, '--port', String(this.port), '--replSet', 'rs0', '--wiredTigerCacheSizeGB', String(this.cacheGb), '--setParameter', 'diagnosticDataCollectionEnabled=false', '--quiet'];
    if (this.binary.kind === 'native') {
      this.proc = startProcess('mongodb', this.binary.path, ['--dbpath', dbPath, ...args], this.dataDir, { detached: this.detached, wrap: this.wrap });
    } else {
      this.proc = startProcess('mongodb', this.binary.wine64, [this.binary.exe, '--dbpath', winePath(dbPath), ...args], this.dataDir, { env: wineEnv(this.binary.prefix), detached: this.detached, wrap: this.wrap });
    }
    const proc = this.proc;
    await waitForPort(this.host, this.port, 120_000, () => proc.alive());
    await initiateReplicaSet(this.host, this.port);
  }

  // mongod under wine ignores SIGTERM; the shutdown command is the clean way for both builds.
  override async stop(): Promise<void> {
    if (!this.proc?.alive()) return;
    const client = new MongoClient(`mongodb://${this.host}:${this.port}/?directConnection=true`, { serverSelectionTimeoutMS: 2_000 });
    try {
      await client.connect();
      await client.db('admin').command({ shutdown: 1, force: true }).catch(() => undefined);
    } catch {
      // unreachable: fall through to signals
    } finally {
      await client.close().catch(() => undefined);
    }
    const proc = this.proc;
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([proc.exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 15_000)))]);
    clearTimeout(timer);
    if (!gone) await stopProcess(proc, 2_000);
    this.proc = undefined;
    // wine's server and device helpers outlive mongod by a moment; wait for them (bounded: another
    // stack may share the prefix and keep them alive legitimately).
    if (this.binary.kind === 'wine') await waitWineserver(this.binary.prefix);
  }
}

/**
 * A copy of the shared prefix (a new directory, so its own wineserver). A real copy (copy-on-write
 * where the file system can), not hard links: files a second wineserver rewrites must not be the
 * files the shared prefix's running mongod reads (the test stack's mongod exited with an unhandled
 * exception while the cluster's started on a hard-linked prefix).
 */
function ownPrefix(shared: string, own: string): string {
  const marker = join(own, '.dv-copied');
  if (!existsSync(marker)) {
    rmSync(own, { recursive: true, force: true });
    execFileSync('cp', ['-a', '--reflink=auto', shared, own]);
    writeFileSync(marker, 'a copy of the shared prefix, not hard links\n');
  }
  return own;
}

async function initiateReplicaSet(hostAddress: string, port: number): Promise<void> {
  const client = new MongoClient(`mongodb://${hostAddress}:${port}/?directConnection=true`, { serverSelectionTimeoutMS: 30_000 });
  try {
    await client.connect();
    const admin = client.db('admin');
    const host = `${hostAddress}:${port}`;
    const status = await admin.command({ replSetGetStatus: 1 }).then(() => 'ok', (err: { code?: number }) => (err.code === 94 ? 'uninitiated' : err.code === 93 ? 'moved' : 'ok'));
    if (status === 'uninitiated') {
      await admin.command({ replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host }] } });
    } else if (status === 'moved') {
      // The data folder was last served on another port: point the one member at this one.
      const { config } = await admin.command({ replSetGetConfig: 1 });
      config.members = [{ ...config.members[0], host }];
      config.version += 1;
      await admin.command({ replSetReconfig: config, force: true });
    }
    for (let i = 0; i < 600; i++) {
      const hello = await admin.command({ hello: 1 });
      if (hello.isWritablePrimary) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`mongod on ${port} did not become primary`);
  } finally {
    await client.close();
  }
}

/** Wraps a MONGODB_URL the developer gave us: used as is, never started or stopped by the launcher. */
export class ExternalMongo implements ServerHandle {
  readonly name = 'mongodb' as const;
  readonly port = 0;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  pid(): number | undefined {
    return undefined;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  running(): boolean {
    return true;
  }
}

export async function allocatePort(): Promise<number> {
  return freePort(HOST);
}

async function waitWineserver(prefix: string): Promise<void> {
  const wineserver = which('wineserver') ?? '/usr/lib/wine/wineserver64';
  await new Promise<void>((resolve) => execFile(wineserver, ['-w'], { env: wineEnv(prefix), timeout: 8_000 }, () => resolve()));
}
