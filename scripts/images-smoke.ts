// Smoke test of the dv-platform image: every service runs from the image (host network, read-only
// root filesystem, no capabilities, the image's non-root user) against the local stack (NATS,
// Redis, MongoDB) and the simulated internet, until each answers /readyz 200; the probe node then
// probes the simulated MX host of acme.test over NATS, as the scheduler would; last, every
// container gets SIGTERM and must exit 0 within its drain budget (node is PID 1 and drains).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { SUBJECTS, newId, probeSessionReply, type ProbeSessionReply, type ProbeSessionRequest } from '@dv/contracts';
import { startDemoWorld, type DemoWorld } from '@dv/infra/demo-world';
import { SERVICE_NAMES, SERVICE_NODE_OPTIONS, type ServiceName } from '@dv/stack';
import { allocatePort } from '@dv/stack';
import { startStack, type Stack } from '@dv/stack';
import { IMAGES_DIR, podman } from './images-podman.ts';

const READY_TIMEOUT_MS = 120_000;
/** Above each service's SHUTDOWN_TIMEOUT_MS default, as the manifests' terminationGracePeriodSeconds. */
const STOP_GRACE_S = 30;
const PROBE_NODE_ID = 'image-smoke';
/** The default world's acme.test (packages/world/worlds/default.json): alice has a mailbox, nobody does not. */
const PROBE_DOMAIN = 'acme.test';
const PROBE_MX = 'mx1.acme.test';
const PROBE_ADDRESSES = { 'alice@acme.test': 250, 'nobody@acme.test': 550 } as const;

interface Running {
  service: ServiceName;
  container: string;
  url: string;
}

/** Exit code of the usage checks: an unknown or missing service must not start anything. */
function checkEntrypoint(image: string, log: (msg: string) => void): void {
  for (const argv of [['no-such-service'], []]) {
    try {
      podman(['run', '--rm', '--network', 'none', '--read-only', image, ...argv], log);
      throw new Error(`the image ran with ${JSON.stringify(argv)} instead of refusing it`);
    } catch (err) {
      if (!/exit 64/.test((err as Error).message)) throw err;
    }
  }
  const version = podman(['run', '--rm', '--network', 'none', '--read-only', '--entrypoint', '/opt/node/bin/node', image, '--version'], log);
  if (!version.startsWith('v24.')) throw new Error(`the image's node is ${version}, not Node 24`);
  const user = podman(['image', 'inspect', '--format', '{{.Config.User}}', image], log);
  if (user.startsWith('0') || user === '' || user.startsWith('root')) throw new Error(`the image runs as "${user}", not a non-root user`);
  const addon = podman(['run', '--rm', '--network', 'none', '--read-only', '--entrypoint', '/opt/node/bin/node', image, '-e', "process.stdout.write(String(require('/app/packages/mailsec/native/build/Release/udp_batch.node').supported))"], log);
  if (addon !== 'true') throw new Error(`the native DNS addon does not load in the image (${addon})`);
  log(`entrypoint refuses unknown/missing services (exit 64); ${version}; user ${user}; udp_batch addon loads`);
}

async function waitReady(r: Running, log: (msg: string) => void): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = await fetch(`${r.url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((res) => res.status, () => 0);
    if (status === 200) return;
    const state = podman(['inspect', '--format', '{{.State.Status}}', r.container], log);
    if (state !== 'running' || Date.now() > deadline) {
      const logs = podman(['logs', '--tail', '30', r.container], log);
      throw new Error(`${r.service} (${state}) did not answer /readyz 200 within ${READY_TIMEOUT_MS} ms (last ${status}):\n${logs}`);
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

async function probeOnce(natsUrl: string): Promise<ProbeSessionReply> {
  const nc = await connect({ servers: natsUrl });
  try {
    const req: ProbeSessionRequest = { session_id: newId('request'), domain: PROBE_DOMAIN, mx_hosts: [PROBE_MX], addresses: Object.keys(PROBE_ADDRESSES), catch_all_probe: false, mail_from: 'verify@probe.test', source_ip: null };
    const m = await nc.request(SUBJECTS.probeSession(PROBE_NODE_ID), JSON.stringify(req), { timeout: 30_000 });
    const reply = probeSessionReply.parse(m.json());
    if (reply.outcome !== 'completed') throw new Error(`probe session ${reply.outcome}: ${reply.detail ?? ''}`);
    for (const [address, code] of Object.entries(PROBE_ADDRESSES)) {
      const got = reply.results.find((x) => x.address === address)?.reply?.code;
      if (got !== code) throw new Error(`probe of ${address}: expected ${code}, got ${got ?? 'no reply'} (${JSON.stringify(reply)})`);
    }
    return reply;
  } finally {
    await nc.close();
  }
}

export async function smokeImage(image: string, log: (msg: string) => void): Promise<void> {
  const t0 = Date.now();
  const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  checkEntrypoint(image, log);
  const dir = join(IMAGES_DIR, 'smoke');
  mkdirSync(dir, { recursive: true });
  // The signing key as a mounted file (the manifests' *_FILE), readable by the image's user.
  const secret = join(dir, 'download-signing-secret');
  writeFileSync(secret, `${randomBytes(48).toString('base64url')}\n`);
  chmodSync(secret, 0o644);
  let stack: Stack | undefined;
  let world: DemoWorld | undefined;
  const running: Running[] = [];
  const tag = `dv-smoke-${process.pid}`;
  // Ctrl-C mid-test: no container, world or stack server is left behind.
  const interrupted = () => {
    for (const r of running) spawnRemove(r.container, log);
    void Promise.allSettled([world?.stop(), stack?.stop()]).then(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    stack = await startStack({ dataDir: join(dir, 'stack'), log });
    world = await startDemoWorld();
    log(`stack and simulated world up (${since()})`);
    const common = { ...stack.env, ...world.env, MONGODB_DB: `dv_images_smoke`, LOG_LEVEL: 'warn', HOST: '127.0.0.1', DOWNLOAD_SIGNING_SECRET_FILE: '/etc/dv/signing/download-signing-secret' };
    for (const service of SERVICE_NAMES) {
      const port = await allocatePort();
      const own: Record<string, string> = { PORT: String(port) };
      if (SERVICE_NODE_OPTIONS[service]) own.NODE_OPTIONS = SERVICE_NODE_OPTIONS[service];
      if (service === 'gateway') own.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
      if (service === 'probe-node') Object.assign(own, { PROBE_NODE_ID, PROBE_SOURCE_IPS: '127.0.0.1', PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true' });
      const env = Object.entries({ ...common, ...own }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const container = `${tag}-${service}`;
      podman(['run', '-d', '--name', container, '--network', 'host', '--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '-v', `${secret}:/etc/dv/signing/download-signing-secret:ro`, ...env, image, service], log);
      const r: Running = { service, container, url: `http://127.0.0.1:${port}` };
      running.push(r);
      // One at a time, as `npm start` does: the stack's mongod (a Windows build under wine) has
      // crashed on five services' first connections arriving in the same instant.
      await waitReady(r, log);
      log(`${service.padEnd(18)} /readyz 200 (${since()})`);
    }
    const reply = await probeOnce(stack.env.NATS_URL!);
    log(`probe-node probed ${PROBE_MX} (${reply.mx_ip}) from the image: ${reply.results.map((x) => `${x.address} ${x.reply?.code}`).join(', ')} (${since()})`);
    while (running.length > 0) {
      const r = running[0]!;
      const t = Date.now();
      podman(['stop', '--time', String(STOP_GRACE_S), r.container], log);
      const code = podman(['inspect', '--format', '{{.State.ExitCode}}', r.container], log);
      if (code !== '0') throw new Error(`${r.service} exited ${code} on SIGTERM after ${Date.now() - t} ms instead of draining to 0:\n${podman(['logs', '--tail', '30', r.container], log)}`);
      podman(['rm', r.container], log);
      running.shift();
    }
    log(`every service drained on SIGTERM and exited 0 (${since()})`);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    for (const r of running) spawnRemove(r.container, log);
    await world?.stop();
    await stack?.stop();
  }
}

function spawnRemove(container: string, log: (msg: string) => void): void {
  try {
    podman(['rm', '-f', '--time', '2', container], log);
  } catch {
    // already gone
  }
}
