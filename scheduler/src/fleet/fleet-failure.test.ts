// The fleet under failure, in the simulated world with real NATS/Redis/MongoDB and
// probe nodes as processes: one node's broken egress stays its own (MX health per (host, source
// IP); a node's own fault marks nothing), and a rolling restart of the probe nodes ends no item
// unknown.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, probeSessionRequest, SUBJECTS, type JobDoc, type JobItemDoc, type ProbeHeartbeat, type ProbeSessionReply } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import { startHarness, until, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';
import { startSchedulerWorld } from '../testing/world.ts';

let t: Harness;
let world: WorldHandle;

beforeAll(async () => {
  t = await startHarness('fleetfail');
  world = await startSchedulerWorld();
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

/** A loopback port nothing listens on: every connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Answers that do not depend on the source IP or on time (no greylisting, no rate limits, no IP blocks). */
const ADDRESSES = [
  'alice@acme.test',
  'nobody@acme.test',
  'carol@acme.test',
  'info@catchall.test',
  'user@fallback.test',
  'user@noverify.test',
  'user@aonly.test',
  ...Array.from({ length: 6 }, (_, i) => `u${i}@slow.test`),
];

async function verdicts(jobId: string): Promise<Record<string, string>> {
  const items: JobItemDoc[] = await itemsOf(t.db, jobId);
  return Object.fromEntries(items.map((i) => [i.email, `${i.result?.status}/${i.result?.sub_status}`]));
}

describe('one probe node’s broken egress', () => {
  it('does not change the verdicts the other nodes give', async () => {
    const good = await t.startProbe('z-good', ['127.0.0.2'], world.env);
    const base = await t.startScheduler({ ...world.env, REDIS_PREFIX: `${t.env.REDIS_PREFIX}base:` });
    const { job: baseJob } = await createTestJob(t.db, t.nc, ADDRESSES);
    await waitForJob(t.db, baseJob._id, 60_000);
    const expected = await verdicts(baseJob._id);
    await base.stop();

    // Two broken nodes that rank first (ids sort before the good one's at equal capacity): one
    // whose every connection is refused (as a dead route looks from the node: maybe the host's
    // fault, so it marks (host, its IP) only), one whose source address does not exist here
    // (its own fault: node_fault egress, marks nothing).
    const refusedNode = await t.startProbe('a-refused', ['127.0.0.3'], world.env, { SMTP_PORT: String(await closedPort()) });
    const egressNode = await t.startProbe('b-egress', ['192.0.2.10'], world.env);
    const asked = { 'a-refused': 0, 'b-egress': 0 };
    const subs = Object.keys(asked).map((id) => t.nc.subscribe(`probe.${id}.session`, { callback: () => void asked[id as keyof typeof asked]++ }));
    const prefix = `${t.env.REDIS_PREFIX}broken:`;
    const sched = await t.startScheduler({ ...world.env, REDIS_PREFIX: prefix });
    try {
      // Every node is known before the job starts, so the broken ones get the first sessions.
      await until(() => sched.scheduler.fleet.alive().length === 3, 10_000, 'three probe nodes');
      const { job } = await createTestJob(t.db, t.nc, ADDRESSES);
      const done = await waitForJob(t.db, job._id, 90_000);
      expect(done.status).toBe('completed');
      expect(await verdicts(job._id)).toEqual(expected);
      expect(Object.values(expected).filter((v) => v.startsWith('unknown/') && v !== 'unknown/no_signal')).toEqual([]);
      // The broken nodes were asked, and what they found stayed with their IP.
      expect(asked['a-refused']).toBeGreaterThan(0);
      expect(asked['b-egress']).toBeGreaterThan(0);
      // Every MX host mark is (host, 127.0.0.3): the refused node's IP only, none from the others.
      const keys = await t.redis.keys(`${prefix}mxdown:*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(await t.redis.zrange(key, '0', '-1'), key).toEqual(['127.0.0.3']);
    } finally {
      for (const s of subs) s.unsubscribe();
      await sched.stop();
      for (const n of [good, refusedNode, egressNode]) await n.stop(2_000);
    }
  }, 240_000);
});

describe('a node whose route out is dead (every connect times out)', () => {
  it('marks the hosts for its own IP for the timeout period and changes no verdict', async () => {
    world.reset();
    // Loopback cannot drop SYNs, so this node is played over NATS: it answers every session as a
    // probe behind a dead route would, after its connect attempts timed out (mx_used null, no
    // node_fault: a timeout may be the host's), without touching the world. Its large capacity
    // ranks it first, so it gets the first sessions.
    const nodeId = 'a-blackhole';
    const beat = (): void => {
      const hb: ProbeHeartbeat = { node_id: nodeId, source_ips: ['127.0.0.10'], capacity: 10_000, in_flight: 0, provider_health: {}, at: new Date().toISOString() };
      t.nc.publish(SUBJECTS.probeHeartbeat, JSON.stringify(hb));
    };
    let asked = 0;
    const sub = t.nc.subscribe(SUBJECTS.probeSession(nodeId), {
      callback: (_err, msg) => {
        asked++;
        const req = probeSessionRequest.parse(msg.json());
        const reply: ProbeSessionReply = {
          session_id: req.session_id, node_id: nodeId, outcome: 'timeout', mx_used: null, source_ip: '127.0.0.10', tls: false, catch_all: null,
          results: req.addresses.map((address) => ({ address, reply: null, ms: 0, state: 'not_attempted' as const })),
          duration_ms: 200, connections: 1, connect_errors: req.mx_hosts.map((host) => ({ host, ip: '192.0.2.99', error: 'timeout after 10000 ms' })),
        };
        setTimeout(() => msg.respond(JSON.stringify(reply)), 200);
      },
    });
    beat();
    const timer = setInterval(beat, 300);
    const good = await t.startProbe('z-good3', ['127.0.0.11'], world.env);
    const prefix = `${t.env.REDIS_PREFIX}blackhole:`;
    const sched = await t.startScheduler({ ...world.env, REDIS_PREFIX: prefix });
    try {
      await until(() => sched.scheduler.fleet.alive().length === 2, 10_000, 'two probe nodes');
      const emails = ['alice@acme.test', 'nobody@acme.test', 'carol@acme.test', ...Array.from({ length: 4 }, (_, i) => `u${i}@slow.test`)];
      const { job } = await createTestJob(t.db, t.nc, emails);
      const done = await waitForJob(t.db, job._id, 90_000);
      expect(done.status).toBe('completed');
      expect(await verdicts(job._id)).toEqual({
        'alice@acme.test': 'deliverable/mailbox_confirmed',
        'nobody@acme.test': 'undeliverable/mailbox_absent',
        'carol@acme.test': 'risky/mailbox_full',
        ...Object.fromEntries(emails.slice(3).map((e) => [e, 'deliverable/mailbox_confirmed'])),
      });
      expect(asked).toBeGreaterThan(0);
      // Marked for the dead node's IP only, for the connect-timeout period (15 min), not 2 min.
      const keys = await t.redis.keys(`${prefix}mxdown:*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const [ip, expiry] = await t.redis.zrange(key, '0', '-1', 'WITHSCORES');
        expect(ip).toBe('127.0.0.10');
        expect(Number(expiry) - Date.now()).toBeGreaterThan(10 * 60_000);
      }
    } finally {
      clearInterval(timer);
      sub.unsubscribe();
      await sched.stop();
      await good.stop(2_000);
    }
  }, 240_000);
});

describe('broken egress and a restart together', () => {
  it('the good node restarting ends no item unknown while the broken one has found the host down', async () => {
    world.reset();
    const refused = await t.startProbe('a-refused2', ['127.0.0.8'], world.env, { SMTP_PORT: String(await closedPort()) });
    let good = await t.startProbe('z-good2', ['127.0.0.9'], world.env, { PROBE_DRAIN_TIMEOUT_MS: '100' });
    const sched = await t.startScheduler({ ...world.env, REDIS_PREFIX: `${t.env.REDIS_PREFIX}both:`, PROBE_NODE_GONE_MS: '10000', POLITE_MAX_SESSIONS: '1', POLITE_RCPTS_PER_SESSION: '2' });
    try {
      await until(() => sched.scheduler.fleet.alive().length === 2, 10_000, 'two probe nodes');
      const emails = Array.from({ length: 24 }, (_, i) => `u${i}@slow.test`);
      const { job } = await createTestJob(t.db, t.nc, emails);
      const host = world.hosts.get('mx.slow.test')!;
      // The refused node has marked the host down for its IP; now the only other node restarts.
      await until(async () => (await t.redis.exists(`${t.env.REDIS_PREFIX}both:mxdown:mx.slow.test`)) === 1, 30_000, 'the refused node’s mark');
      await until(() => host.sessions.find((s) => s.clientIp === '127.0.0.9' && s.endedAtMs === undefined), 30_000, 'a session from the good node');
      await good.stop(5_000);
      good = await t.startProbe('z-good2', ['127.0.0.9'], world.env, { PROBE_DRAIN_TIMEOUT_MS: '100' });
      const done = await waitForJob(t.db, job._id, 120_000);
      expect(done.counts).toMatchObject({ deliverable: emails.length, unknown: 0 });
    } finally {
      await sched.stop();
      for (const n of [refused, good]) await n.stop(2_000);
    }
  }, 240_000);
});

describe('a rolling restart of the probe nodes', () => {
  it('ends no item unknown', async () => {
    world.reset();
    const ips = ['127.0.0.4', '127.0.0.5', '127.0.0.6'];
    // A short drain budget: a node stopping cuts the sessions it has in flight (node_fault shutdown).
    const nodeEnv = { PROBE_DRAIN_TIMEOUT_MS: '100' };
    const nodes = await Promise.all(ips.map((ip, i) => t.startProbe(`roll${i}`, [ip], world.env, nodeEnv)));
    // One session of 2 RCPTs at a time per IP on a host answering each line after 150 ms.
    const sched = await t.startScheduler({ ...world.env, POLITE_MAX_SESSIONS: '1', POLITE_RCPTS_PER_SESSION: '2' });
    try {
      await until(() => sched.scheduler.fleet.alive().length === 3, 10_000, 'three probe nodes');
      const emails = Array.from({ length: 48 }, (_, i) => `u${i}@slow.test`);
      const { job } = await createTestJob(t.db, t.nc, emails);
      const host = world.hosts.get('mx.slow.test')!;
      const inFlightAtStop = [];
      for (let i = 0; i < ips.length; i++) {
        // Stop each node while it is in the middle of a session, then start it again on the same IP.
        inFlightAtStop.push(await until(() => host.sessions.find((s) => s.clientIp === ips[i] && s.endedAtMs === undefined && s.commands.length > 0), 30_000, `a session from ${ips[i]}`));
        await nodes[i]!.stop(5_000);
        nodes[i] = await t.startProbe(`roll${i}`, [ips[i]!], world.env, nodeEnv);
      }
      const done = await waitForJob(t.db, job._id, 120_000);
      expect(done.status).toBe('completed');
      expect(done.counts).toMatchObject({ deliverable: emails.length, unknown: 0 });
      const items = await t.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ job_id: job._id, 'result.status': 'unknown' }).toArray();
      expect(items.map((i) => i.email)).toEqual([]);
      // Sessions were cut by the stops (no QUIT: the node closed them mid-dialogue), and no address
      // of theirs was judged from it.
      expect(inFlightAtStop.filter((s) => !s.commands.some((c) => /^QUIT/i.test(c))).length).toBeGreaterThan(0);
      expect((await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!.done).toBe(emails.length);
    } finally {
      await sched.stop();
      for (const n of nodes) await n.stop(2_000);
    }
  }, 240_000);
});
