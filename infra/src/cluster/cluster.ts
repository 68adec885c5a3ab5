// A cluster of separate hosts on this machine (docs/cluster.md): network namespaces on one bridge (see
// ./topology.ts), NATS, Redis and MongoDB on the infra host, gateways, schedulers and probe nodes on
// hosts of their own, the simulated internet on another. Every server binds to its host's address;
// nothing crosses hosts over loopback. `stop()` ends every process and removes every namespace and
// link, also after a failure part-way.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { WorldInput } from '@dv/world';
import { stackSecretsEnv, startServiceProcess, type RunningProcess, type ServiceName } from '@dv/stack';
import type { ServerName } from '@dv/stack';
import { DEFAULT_CACHE_DIR, REPO_ROOT, startStack, type Stack } from '@dv/stack';
import { buildCluster, clusterSupported, inHost, killNamespace, removeCluster, setLink } from './netns.ts';
import { defaultTopology, hostByName, hostsOf, namespaceOf, WORLD_PORTS, type HostSpec, type Topology, type TopologyOptions } from './topology.ts';

export const SERVICE_PORTS = { gateway: 8080, scheduler: 9464, 'probe-node': 9465 } as const;
const INFRA_PORTS = { nats: 4222, redis: 6379, mongodb: 27017 } as const;

export interface ClusterOptions extends TopologyOptions {
  /** The simulated internet; its MX hosts' addresses must come from `internetAddress()`. */
  world: WorldInput;
  dataDir?: string;
  log?: (msg: string) => void;
  /** Environment for every service (e.g. the greylist ladder scale of a test). */
  env?: Record<string, string>;
  /** Start this many probe hosts' nodes now (default: all); the rest with `startProbe`. */
  startProbes?: number;
}

export interface ServiceOnHost {
  host: string;
  name: ServiceName;
  proc: RunningProcess;
}

export interface Cluster {
  topology: Topology;
  /** NATS_URL, REDIS_URL, MONGODB_URL as the operator reaches them (over the bridge). */
  env: Record<string, string>;
  gateways: string[];
  services: ServiceOnHost[];
  worldControl: string;
  startProbe(host: string): Promise<void>;
  /** SIGKILL every process of a host, as a host losing power. */
  killHost(host: string): number;
  /** Take a host's link down (cut off) or up again. */
  setLink(host: string, up: boolean): void;
  /** Stops a server of the infra host, waits `downMs`, starts it again on the same port and data. */
  restartServer(name: ServerName, downMs: number): Promise<void>;
  stack: Stack;
  stop(): Promise<void>;
}

interface Agent {
  child: ChildProcess;
  exited: Promise<void>;
}

async function startWorldAgent(t: Topology, file: string, logDir: string): Promise<{ agent: Agent; env: Record<string, string> }> {
  const net = hostsOf(t, 'internet')[0]!;
  const [ip, ...ipArgs] = inHost(t, net.name);
  const child = spawn(ip!, [...ipArgs, process.execPath, join(REPO_ROOT, 'infra/src/cluster/world-agent.ts'), file, net.addresses[0]!], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let errTail = '';
  child.stderr!.on('data', (d: Buffer) => (errTail = (errTail + d.toString()).slice(-2_000)));
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the world agent did not start in 60 s: ${errTail}`)), 60_000);
    void exited.then(() => reject(new Error(`the world agent exited: ${errTail}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { ready?: boolean; env?: Record<string, string> };
        if (msg.ready && msg.env) {
          clearTimeout(timer);
          resolve(msg.env);
        }
      } catch {
        // not the ready line
      }
    });
  });
  writeFileSync(join(logDir, 'world-agent.pid'), String(child.pid));
  return { agent: { child, exited }, env };
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const unsupported = clusterSupported(log);
  if (unsupported) throw new Error(`the cluster harness cannot run here: ${unsupported}`);
  const t = defaultTopology(opts);
  const dataDir = opts.dataDir ?? join(REPO_ROOT, '.local', 'cluster');
  rmSync(dataDir, { recursive: true, force: true });
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const mxAddresses = (opts.world.smtp?.hosts ?? []).map((h) => h.ip);
  const internet = hostsOf(t, 'internet')[0]!;
  log(`building ${t.hosts.length} hosts (network namespaces ${t.prefix}-*) on bridge ${t.bridge}, ${mxAddresses.length} MX addresses`);
  buildCluster(t, { [internet.name]: mxAddresses });

  const services: ServiceOnHost[] = [];
  let stack: Stack | undefined;
  let agent: Agent | undefined;
  const stop = async (): Promise<void> => {
    await Promise.allSettled(services.map((s) => s.proc.stop(5_000)));
    if (agent && agent.child.exitCode === null) agent.child.kill('SIGTERM');
    await agent?.exited;
    await stack?.stop();
    removeCluster(t.prefix);
  };
  try {
    const infra = hostsOf(t, 'infra')[0]!;
    log(`starting NATS, Redis and MongoDB on ${infra.name} (${infra.addresses[0]})…`);
    stack = await startStack({ dataDir: join(dataDir, 'stack'), log, placement: { host: infra.addresses[0]!, wrap: inHost(t, infra.name), ports: INFRA_PORTS, winePrefix: join(DEFAULT_CACHE_DIR, 'wine-cluster') } });
    const worldFile = join(dataDir, 'world.json');
    writeFileSync(worldFile, JSON.stringify(opts.world));
    const started = await startWorldAgent(t, worldFile, logDir);
    agent = started.agent;
    const base: Record<string, string> = { ...stack.env, ...started.env, ...stackSecretsEnv(stack.dataDir), LOG_LEVEL: 'warn', PROBE_ALLOW_PRIVATE_MX: 'true', ...opts.env };
    const run = async (host: HostSpec, name: ServiceName, own: Record<string, string> = {}): Promise<void> => {
      const proc = await startServiceProcess(name, {
        env: { ...base, HOST: host.addresses[0]!, ...own },
        port: SERVICE_PORTS[name as keyof typeof SERVICE_PORTS],
        logDir: join(logDir, host.name),
        wrap: inHost(t, host.name),
        readyTimeoutMs: 90_000,
      });
      services.push({ host: host.name, name, proc });
      log(`  ${name} on ${host.name}: ${proc.url}`);
    };
    const startProbe = async (name: string): Promise<void> => {
      const host = hostByName(t, name);
      await run(host, 'probe-node', { PROBE_NODE_ID: host.name, PROBE_SOURCE_IPS: host.addresses.join(','), PROBE_HELO_NAME: `${host.name}.cluster.test`, PROBE_MAIL_FROM: `verify@${host.name}.cluster.test` });
    };
    for (const host of hostsOf(t, 'scheduler')) await run(host, 'scheduler');
    const probes = hostsOf(t, 'probe');
    for (const host of probes.slice(0, opts.startProbes ?? probes.length)) await startProbe(host.name);
    for (const host of hostsOf(t, 'gateway')) await run(host, 'gateway', { PUBLIC_BASE_URL: `http://${host.addresses[0]}:${SERVICE_PORTS.gateway}` });
    const gateways = services.filter((s) => s.name === 'gateway').map((s) => s.proc.url);
    return {
      topology: t,
      env: stack.env,
      gateways,
      services,
      worldControl: `http://${internet.addresses[0]}:${WORLD_PORTS.control}`,
      startProbe,
      killHost: (host) => killNamespace(namespaceOf(t, host)),
      setLink: (host, up) => setLink(t, host, up),
      restartServer: async (name, downMs) => {
        const server = stack!.servers[name];
        if (!server) throw new Error(`no ${name} server in the cluster`);
        await server.stop();
        await new Promise((r) => setTimeout(r, downMs));
        await server.start();
      },
      stack,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
