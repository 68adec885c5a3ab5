// Politeness across replicas: two scheduler processes share one Redis semaphore, so the MX host
// never sees more sessions at once than the per-provider limit; and a throttling host gets a
// pause, then the work resumes and finishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProcess } from '@dv/stack';
import type { WorldHandle } from '@dv/world';
import { startHarness, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';
import { startSchedulerWorld } from '../testing/world.ts';

let t: Harness;
let world: WorldHandle;
let replicas: RunningProcess[];

beforeAll(async () => {
  t = await startHarness('polite');
  world = await startSchedulerWorld();
  // One connection per session: the throttling host counts connections, and this file watches the
  // scheduler's gates and pauses (connection reuse and its politeness are tested in probe-node).
  await t.startProbe('p-node', ['127.0.0.1'], world.env, { PROBE_IDLE_CONNECTION_MS: '0' });
  const env = {
    ...world.env,
    POLITE_MAX_SESSIONS: '2',
    POLITE_RCPTS_PER_SESSION: '2',
    POLITE_SESSIONS_PER_MIN: '10000',
    // Small intake per replica so both replicas take part in one job.
    FETCH_BATCH: '4',
    MAX_ITEMS_IN_FLIGHT: '8',
    PROVIDER_PAUSE_INITIAL_MS: '1000',
    PROVIDER_PAUSE_MAX_MS: '4000',
  };
  replicas = await Promise.all([t.startSchedulerProcess(env), t.startSchedulerProcess(env)]);
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

async function metric(name: string, of: RunningProcess[] = replicas): Promise<number> {
  let sum = 0;
  for (const r of of) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    for (const line of text.split('\n')) if (line.startsWith(name) && !line.startsWith('#')) sum += Number(line.split(' ').pop());
  }
  return sum;
}

describe('politeness across replicas', () => {
  it('never opens more than 2 concurrent sessions to the provider, whichever replica dispatches', async () => {
    const emails = Array.from({ length: 24 }, (_, i) => `u${i}@polite.test`);
    const { job } = await createTestJob(t.db, t.nc, emails);
    const done = await waitForJob(t.db, job._id, 90_000);
    expect(done.done).toBe(24);
    expect(done.counts.deliverable).toBe(24);
    const host = world.hosts.get('mx.polite.test')!;
    expect(host.sessionsTotal).toBeGreaterThanOrEqual(12);
    // Connection reuse is off in this file (see beforeAll), so sessions are connections here.
    // Both replicas dispatched sessions to the host.
    for (const r of replicas) expect(await metric('scheduler_probe_sessions_total', [r])).toBeGreaterThan(0);
    expect(host.maxConcurrentSessions).toBeLessThanOrEqual(2);
    expect(host.concurrencyViolations).toBe(0);
    expect(await metric('scheduler_politeness_waits_total')).toBeGreaterThan(0);
  }, 90_000);

  it('pauses a throttling provider, then resumes and finishes', async () => {
    const first = await createTestJob(t.db, t.nc, ['user@throttle.test']);
    await waitForJob(t.db, first.job._id, 30_000);
    // The host allows one session per 2 s per client IP: the next one is refused with 421.
    const second = await createTestJob(t.db, t.nc, ['user@throttle.test']);
    const done = await waitForJob(t.db, second.job._id, 60_000);
    expect(done.counts.deliverable).toBe(1);
    const [item] = await itemsOf(t.db, second.job._id);
    expect(item!.attempts).toBeGreaterThanOrEqual(2);
    const replies = world.hosts.get('mx.throttle.test')!.sessions.flatMap((s) => s.replies);
    expect(replies.some((r) => r.startsWith('421'))).toBe(true);
    expect(await metric('scheduler_provider_pauses_total')).toBeGreaterThan(0);
  }, 60_000);
});
