// Bounded failure: an item whose VERIFY message keeps coming back, or whose probe
// sessions keep getting lost, ends as a terminal unknown with its reason, and its job completes.
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { COLLECTIONS, CONSUMERS, SUBJECTS, type JobDoc, type ProbeHeartbeat } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import { createSchedulerMetrics, SCHEDULER_METRICS } from '../metrics.ts';
import { startHarness, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';
import { startSchedulerWorld } from '../testing/world.ts';

let t: Harness;
let world: WorldHandle;

beforeAll(async () => {
  t = await startHarness('poison');
  world = await startSchedulerWorld();
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

async function expectCompleted(job: JobDoc): Promise<void> {
  const final = (await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!;
  expect(final.status).toBe('completed');
  expect(final.done).toBe(final.total);
}

describe('poison items', () => {
  it('exports scheduler_poison_items_total for both reasons from the start', async () => {
    const registry = new Registry();
    createSchedulerMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain(`${SCHEDULER_METRICS.poisonItems}{reason="deliveries"} 0`);
    expect(text).toContain(`${SCHEDULER_METRICS.poisonItems}{reason="lost_sessions"} 0`);
  });

  it('a message delivered more than VERIFY_MAX_DELIVERIES times ends its item unknown with the reason', async () => {
    const { job } = await createTestJob(t.db, t.nc, ['alice@acme.test']);
    const durable = CONSUMERS.find((c) => c.filterSubject === 'verify.item.single')!.durable;
    const consumer = await jetstream(t.nc).consumers.get('VERIFY', durable);
    // Three failed deliveries (as a crashing replica would leave them), before any scheduler runs.
    for (let i = 1; i <= 3; i++) {
      const m = await consumer.next({ expires: 5_000 });
      expect(m?.info.deliveryCount).toBe(i);
      m!.nak();
    }
    const { stop } = await t.startScheduler({ ...world.env, VERIFY_MAX_DELIVERIES: '3' });
    await waitForJob(t.db, job._id, 20_000);
    await expectCompleted(job);
    const [item] = await itemsOf(t.db, job._id);
    expect(item!.result).toMatchObject({ status: 'unknown', sub_status: 'no_signal' });
    expect(item!.result!.reason).toMatch(/failed 3 times/);
    // Never probed: the simulated host saw no session for it.
    expect(world.hosts.get('mx1.acme.test')!.sessions.length).toBe(0);
    await stop();
  }, 60_000);

  it('a batch whose probe sessions keep getting lost ends after PROBE_REDISPATCH_MAX; the job completes', async () => {
    // A node that announces capacity and never answers a session: every request times out.
    const nodeId = 'silent-node';
    const requests: string[] = [];
    const sub = t.nc.subscribe(`probe.${nodeId}.session`, { callback: (_err, msg) => void requests.push(msg.subject) });
    const beat = (): void => {
      const hb: ProbeHeartbeat = { node_id: nodeId, source_ips: ['127.0.0.1'], capacity: 10, in_flight: 0, provider_health: {}, at: new Date().toISOString() };
      t.nc.publish(SUBJECTS.probeHeartbeat, JSON.stringify(hb));
    };
    beat();
    const timer = setInterval(beat, 100);
    try {
      const { stop } = await t.startScheduler({
        ...world.env,
        PROBE_SESSION_TIMEOUT_MS: '300',
        PROBE_REQUEST_MARGIN_MS: '100',
        PROBE_NODE_GONE_MS: '200',
        PROBE_REDISPATCH_MAX: '2',
      });
      const { job } = await createTestJob(t.db, t.nc, ['bob@acme.test']);
      await waitForJob(t.db, job._id, 30_000);
      await expectCompleted(job);
      const [item] = await itemsOf(t.db, job._id);
      expect(item!.result).toMatchObject({ status: 'unknown', sub_status: 'no_signal' });
      expect(item!.result!.reason).toMatch(/3 probe sessions for this address were lost/);
      // Sent once and again twice (the bound), never a fourth time.
      expect(requests.length).toBe(3);
      await stop();
    } finally {
      clearInterval(timer);
      sub.unsubscribe();
    }
  }, 60_000);
});
