import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, itemId, type JobItemDoc } from '@dv/contracts';
import { startGatewayHarness, startLiveStack, type GatewayHarness, type LiveStack, type TestAccount } from '@dv/gateway/testing';
import { call, until } from '@dv/test-kit';

// Progress figures a user can trust (docs/gateway.md "ETAs"), end to end: the gateway in process,
// the real scheduler and probe node as processes, the simulated internet. A politeness-limited
// list's ETA at 25% and 50% done is within a factor of two of the time it really took; a
// greylisted single reports its retry time; with every probe node gone, status and ETAs say so.

const PACED = 40;
let h: GatewayHarness;
let a: TestAccount;
let live: LiveStack;

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'progress' });
  a = await h.account({ credits: 10_000 });
  live = await startLiveStack(h, {
    label: 'progress',
    records: [
      { name: 'paced.test', type: 'MX', priority: 10, exchange: 'mx.paced.test', ttl: 300 },
      { name: 'mx.paced.test', type: 'A', address: '127.0.9.50', ttl: 300 },
    ],
    hosts: [{ name: 'mx.paced.test', ip: '127.0.9.50', mailboxes: Array.from({ length: PACED }, (_, i) => `u${i}@paced.test`), behaviour: { tarpitMs: 100 } }],
    schedulerEnv: {
      // One session at a time per (provider, IP), two recipients each, to a host that answers
      // slowly: a 40-address list of one domain takes 10-20 s, paced by politeness as real lists are.
      POLITE_RCPTS_PER_SESSION: '2',
      POLITE_MAX_SESSIONS: '1',
      // The first greylist step (5 min) scaled to 30 s: long enough to read while it waits.
      GREYLIST_LADDER_SCALE: '0.1',
    },
  });
  // The scheduler has seen the node.
  await until(async () => {
    const s = await call(h.url, '/v1/status', { key: a.live });
    return s.body.source === 'scheduler' && s.body.reason === null;
  }, 20_000, 'scheduler figures with capacity');
}, 180_000);

afterAll(async () => {
  await live?.stop();
  await h?.close();
}, 60_000);

describe('ETAs', () => {
  it('a politeness-limited list: the ETA at 25% and 50% done is within a factor of two of the real time left', async () => {
    const emails = Array.from({ length: PACED }, (_, i) => `u${i}@paced.test`);
    const created = await call(h.url, '/v1/jobs', { key: a.live, body: { emails, label: 'paced' } });
    expect(created.status).toBe(202);
    const id = created.body.job_id as string;
    const seen: Array<{ at: number; done: number; eta: number | null }> = [];
    let job = created.body;
    while (job.status === 'running') {
      await new Promise((r) => setTimeout(r, 250));
      job = (await call(h.url, `/v1/jobs/${id}`, { key: a.live })).body;
      seen.push({ at: Date.now(), done: job.done, eta: job.eta_seconds });
    }
    const end = Date.now();
    expect(job).toMatchObject({ status: 'completed', done: PACED, eta_seconds: null, eta_reason: null });
    for (const share of [0.25, 0.5]) {
      const point = seen.find((s) => s.done >= share * PACED);
      expect(point, `a poll at ${share * 100}%`).toBeDefined();
      const real = (end - point!.at) / 1000;
      expect(point!.eta, `ETA at ${share * 100}% done (real ${real.toFixed(1)} s)`).not.toBeNull();
      const ratio = point!.eta! / Math.max(1, real);
      expect(ratio, `ETA ${point!.eta} s against ${real.toFixed(1)} s really left at ${share * 100}%`).toBeGreaterThanOrEqual(0.5);
      expect(ratio).toBeLessThanOrEqual(2);
    }
  });

  it('a greylisted single reports the time of its next attempt', async () => {
    const r = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'user@greylist.test', wait: 0 } });
    expect(r.status).toBe(202);
    const id = r.body.job_id as string;
    const item = await until(
      async () => {
        const doc = await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).findOne({ _id: itemId(id, 0) });
        return doc?.state === 'waiting_retry' && doc.next_attempt_at ? doc : null;
      },
      20_000,
      'the single parked for its greylist retry',
    );
    const job = (await call(h.url, `/v1/jobs/${id}`, { key: a.live })).body;
    const untilRetry = (new Date(item.next_attempt_at!).getTime() - Date.now()) / 1000;
    expect(untilRetry).toBeGreaterThan(10);
    expect(job.eta_seconds).toBeGreaterThanOrEqual(Math.floor(untilRetry));
    expect(job.eta_seconds).toBeLessThanOrEqual(untilRetry + 15);
    // Parked, it is still counted as a single check, not as list work.
    await until(async () => ((await call(h.url, '/v1/status', { key: a.live })).body.queue.single as number) >= 1, 10_000, 'the parked single in the single queue');
  });
});

describe('no probe capacity', () => {
  it('with every probe node gone: status saturated with the reason, ETAs null, scheduler degraded and its metric set; all back when a node returns', async () => {
    await live.stopProbe();
    const status = await until(
      async () => {
        const s = await call(h.url, '/v1/status', { key: a.live });
        return s.body.reason === 'no_probe_capacity' ? s.body : null;
      },
      20_000,
      'status naming no probe capacity',
    );
    expect(status).toMatchObject({ load: 'saturated', seconds_per_single: null, seconds_per_1000: null });
    expect(status.advice).toMatch(/no probe node/i);

    const queued = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'alice@acme.test', wait: 1 } });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ estimated_seconds: null, queue: { reason: 'no_probe_capacity', load: 'saturated' } });
    const job = (await call(h.url, `/v1/jobs/${queued.body.job_id}`, { key: a.live })).body;
    expect(job).toMatchObject({ status: 'running', eta_seconds: null, eta_reason: 'no_probe_capacity' });
    // Sandbox work needs no probe: it keeps its estimate.
    const sandbox = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['x@example.com', 'y@example.com'] } });
    expect(sandbox.body.eta_reason ?? null).toBeNull();

    const ready = await fetch(`${live.scheduler.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', degraded: ['no_probe_capacity'] });
    expect(await (await fetch(`${live.scheduler.url}/metrics`)).text()).toMatch(/^scheduler_no_probe_capacity\{[^}]*\} 1$/m);

    await live.startProbe();
    await until(async () => (await call(h.url, '/v1/status', { key: a.live })).body.reason === null, 20_000, 'capacity back in status');
    const done = await call(h.url, `/v1/jobs/${queued.body.job_id}?wait=20`, { key: a.live });
    expect(done.body).toMatchObject({ status: 'completed', result: { status: 'deliverable' } });
    expect(await (await fetch(`${live.scheduler.url}/readyz`)).json()).not.toHaveProperty('degraded');
  });
});
