// The NATS side: request/reply, capacity, heartbeats, metrics (in process), and the real process
// (main.ts) end to end with a graceful SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS, probeHeartbeat, probeSessionReply, type ProbeHeartbeat, type ProbeSessionReply, type ProbeSessionRequest } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { stackEnv } from '@dv/test-kit';
import { ProbeNode } from './node.ts';
import { request, testConfig } from './testing.ts';

let world: WorldHandle;
let nc: NatsConnection;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  nc = await connect({ servers: stackEnv().NATS_URL });
});
afterAll(async () => {
  await nc?.drain();
  await world?.stop();
});

async function ask(nodeId: string, req: ProbeSessionRequest | Record<string, unknown>, timeoutMs = 15_000): Promise<ProbeSessionReply> {
  const msg = await nc.request(SUBJECTS.probeSession(nodeId), JSON.stringify(req), { timeout: timeoutMs });
  return probeSessionReply.parse(msg.json());
}

/** Collects the heartbeats of one node id as they arrive. */
function heartbeats(nodeId: string): { beats: (ProbeHeartbeat & { receivedAt: number })[]; sub: Subscription } {
  const beats: (ProbeHeartbeat & { receivedAt: number })[] = [];
  const sub = nc.subscribe(SUBJECTS.probeHeartbeat, {
    callback: (_err, msg) => {
      const beat = probeHeartbeat.parse(msg.json());
      if (beat.node_id === nodeId) beats.push({ ...beat, receivedAt: Date.now() });
    },
  });
  return { beats, sub };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('ProbeNode in process', () => {
  const nodeId = `t-node-${process.pid}`;
  let node: ProbeNode;
  let registry: Registry;
  let hb: ReturnType<typeof heartbeats>;

  beforeAll(async () => {
    registry = new Registry();
    const config = testConfig({ ...world.env, ...stackEnv() }, { PROBE_MAX_CONCURRENT_SESSIONS: '2', PROBE_HEARTBEAT_INTERVAL_MS: '200' });
    hb = heartbeats(nodeId);
    await nc.flush();
    node = new ProbeNode({ nc, config, nodeId, log: createLogger('probe-node', 'silent'), registry });
    node.start();
  });
  afterAll(async () => {
    await node?.stop(1_000);
    await hb.sub.unsubscribe();
  });

  it('answers a request with a schema-valid reply', async () => {
    const reply = await ask(nodeId, request('acme.test', ['mx1.acme.test'], ['alice@acme.test', 'nobody@acme.test']));
    expect(reply).toMatchObject({ node_id: nodeId, outcome: 'completed', tls: true, mx_used: 'mx1.acme.test' });
    expect(reply.results.map((r) => r.reply?.code)).toEqual([250, 550]);
  });

  it('answers an invalid request with protocol_error instead of ignoring it', async () => {
    const reply = await ask(nodeId, { session_id: 'bad', domain: 'x.test', mx_hosts: [], addresses: ['a@x.test'] });
    expect(reply).toMatchObject({ session_id: 'bad', outcome: 'protocol_error' });
    expect(reply.detail).toMatch(/invalid request/);
  });

  it('answers busy at once beyond capacity, and serves again when a slot frees', async () => {
    // 1 s per reply and a 5 s deadline: both stay in flight well past the busy answer, even on a slow machine.
    const slow = (i: number) => ask(nodeId, request('tarpit.test', ['mx.tarpit.test'], [`u${i}@tarpit.test`], { timeouts: { sessionMs: 5_000 } }));
    const held = [slow(1), slow(2)];
    let heldSettled = 0;
    for (const h of held) void h.then(() => heldSettled++, () => heldSettled++);
    await until(() => node.inFlight === 2, 5_000);
    const busy = await ask(nodeId, request('acme.test', ['mx1.acme.test'], ['alice@acme.test']));
    expect(busy).toMatchObject({ outcome: 'busy', results: [] });
    // "At once" as an order: the busy answer came while both held sessions were still running.
    expect(heldSettled).toBe(0);
    expect(node.inFlight).toBe(2);
    await until(() => hb.beats.some((b) => b.in_flight === 2 && b.capacity === 2), 5_000);
    expect((await Promise.all(held)).map((r) => r.outcome)).toEqual(['timeout', 'timeout']);
    expect((await ask(nodeId, request('acme.test', ['mx1.acme.test'], ['alice@acme.test']))).outcome).toBe('completed');
  });

  it('reports throttled and blocked replies per provider in its heartbeats', async () => {
    await ask(nodeId, request('blocked.test', ['mx.blocked.test'], ['user@blocked.test']));
    const mark = Date.now();
    await until(() => hb.beats.some((b) => b.receivedAt > mark && (b.provider_health['blocked.test']?.blocked ?? 0) >= 2), 5_000);
    const last = hb.beats.at(-1)!;
    expect(last).toMatchObject({ source_ips: [], capacity: 2, window_ms: 300_000 });
    expect(last.provider_health['blocked.test']).toEqual({ throttled: 0, blocked: 2 });
  });

  it("does not count a harvest defence's cut as throttling of the provider", async () => {
    const invalid = Array.from({ length: 6 }, (_, i) => `h${i}@harvest.test`);
    const reply = await ask(nodeId, request('harvest.test', ['mx.harvest.test'], invalid));
    expect(reply.cut?.reply.code).toBe(421);
    const mark = Date.now();
    await until(() => hb.beats.some((b) => b.receivedAt > mark + 250), 5_000);
    expect(hb.beats.at(-1)!.provider_health['harvest.test'] ?? { throttled: 0, blocked: 0 }).toEqual({ throttled: 0, blocked: 0 });
  });

  it('exposes bounded metrics (provider label, never an address)', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/probe_sessions_total\{provider="self_hosted",outcome="completed"\} \d+/);
    expect(text).toMatch(/probe_sessions_total\{provider="self_hosted",outcome="busy"\} 1/);
    expect(text).toMatch(/probe_replies_total\{provider="self_hosted",class="policy_blocked",stage="rcpt"\} 2/);
    expect(text).toMatch(/probe_session_duration_seconds_bucket\{le="1",outcome="completed"\}/);
    expect(text).toContain('probe_sessions_in_flight 0');
    expect(text).not.toMatch(/@|acme\.test|blocked\.test/);
  });
});

describe('the probe-node process', () => {
  const nodeId = `e2e-${process.pid}`;
  let proc: RunningProcess;
  let logDir: string;
  let hb: ReturnType<typeof heartbeats>;

  beforeAll(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'probe-node-'));
    hb = heartbeats(nodeId);
    await nc.flush();
    proc = await startServiceProcess('probe-node', {
      env: { ...stackEnv(), ...world.env, PROBE_NODE_ID: nodeId, PROBE_HELO_NAME: 'probe.test', PROBE_ALLOW_PRIVATE_MX: 'true', PROBE_MAX_CONCURRENT_SESSIONS: '7', LOG_LEVEL: 'info' },
      logDir,
    });
  }, 60_000);
  afterAll(async () => {
    await proc?.stop();
    await hb.sub.unsubscribe();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('serves probe.<id>.session and heartbeats every ~2 s with capacity and in-flight', async () => {
    const reply = await ask(nodeId, request('fallback.test', ['mx1.fallback.test', 'mx2.fallback.test'], ['user@fallback.test']));
    expect(reply).toMatchObject({ node_id: nodeId, outcome: 'completed', mx_used: 'mx2.fallback.test' });
    await until(() => hb.beats.length >= 3, 8_000);
    // By the node's own send times (`at`): in order and spaced by the 2 s interval (1.5 s allows for
    // a tick that ran late behind other timers; a load can only stretch the gaps). How late they
    // arrive depends on the machine's load, so arrival times are not asserted.
    const sent = hb.beats.map((b) => Date.parse(b.at));
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1_500);
    expect(hb.beats.at(-1)).toMatchObject({ capacity: 7, in_flight: 0 });
  }, 20_000);

  it('on SIGTERM stops taking work, finishes the session in flight, then exits 0', async () => {
    const inFlight = ask(nodeId, request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test'], { timeouts: { sessionMs: 3_500 } }));
    await until(() => hb.beats.some((b) => b.in_flight === 1), 5_000);
    const code = proc.stop();
    const reply = await inFlight;
    expect(reply).toMatchObject({ outcome: 'timeout', node_id: nodeId });
    expect(reply.detail).toMatch(/session time limit/);
    expect(await code).toBe(0);
    expect(hb.beats.at(-1)).toMatchObject({ capacity: 0, in_flight: 0, draining: true });
  }, 20_000);
});
