// A directory-harvest defence in the simulated world: mx.harvest.test answers 421 "too many errors"
// once a connection drew 5 error replies (RSET does not reset the count). A list of 30 mostly
// invalid addresses must still end with the right verdict for every one: the addresses a cut left
// unanswered go to new sessions (never judged, not an attempt), the host's budget is learned, and
// the sessions after that stay under it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { startHarness, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';
import { startSchedulerWorld } from '../testing/world.ts';

let t: Harness;
let world: WorldHandle;

beforeAll(async () => {
  t = await startHarness('harvest');
  world = await startSchedulerWorld();
  await t.startProbe('h-node', ['127.0.0.1'], world.env);
  await t.startScheduler({ ...world.env, POLITE_SESSIONS_PER_MIN: '10000' });
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

const rcptsOf = (commands: string[]) => commands.filter((c) => /^RCPT /i.test(c)).length;

describe('a host that cuts sessions after 5 errors', () => {
  it('every address gets its own verdict, none from a cut; the budget is learned and later sessions stay under it', async () => {
    const host = world.hosts.get('mx.harvest.test')!;
    const invalid = Array.from({ length: 29 }, (_, i) => `nobody${i}@harvest.test`);
    const emails = [...invalid.slice(0, 10), 'user@harvest.test', ...invalid.slice(10)];
    const { job } = await createTestJob(t.db, t.nc, emails);
    const done = await waitForJob(t.db, job._id, 90_000);
    expect(done.done).toBe(30);

    const items = await itemsOf(t.db, job._id);
    const got = Object.fromEntries(items.map((i) => [i.email, `${i.result?.status}/${i.result?.sub_status}`]));
    expect(got).toEqual(Object.fromEntries(emails.map((e) => [e, e === 'user@harvest.test' ? 'deliverable/mailbox_confirmed' : 'undeliverable/mailbox_absent'])));
    // Sent again after a cut is not an attempt: one session answered each address.
    for (const item of items) expect(item.attempts, item.email).toBe(1);

    const sessions = [...host.sessions];
    const cut = sessions.filter((s) => s.replies.some((r) => r.startsWith('421')));
    expect(cut.length).toBeGreaterThanOrEqual(1);
    for (const s of cut) expect(s.replies.at(-1)).toBe('421 4.7.0 mx.harvest.test Error: too many errors');
    // Only sessions already under way when the first cut came can be cut: later ones are sized by the budget.
    const firstCutAtMs = Math.min(...cut.map((s) => s.endedAtMs ?? Number.POSITIVE_INFINITY));
    for (const s of cut) expect(s.startedAtMs).toBeLessThanOrEqual(firstCutAtMs + 1_000);
    const later = sessions.filter((s) => s.startedAtMs > Math.max(...cut.map((c) => c.endedAtMs ?? 0)));
    expect(later.length).toBeGreaterThanOrEqual(1);
    for (const s of later) {
      expect(s.replies.some((r) => r.startsWith('421')), `session ${s.id}`).toBe(false);
      // Budget 5: at most 4 errors per connection, so the RSET after the last RCPT is still answered.
      expect(s.errors, `session ${s.id}`).toBeLessThanOrEqual(4);
      // Catch-all probe + 3 addresses per transaction, and a connection with errors is not reused.
      expect(rcptsOf(s.commands), `session ${s.id}`).toBeLessThanOrEqual(4);
    }
    // The sessions the budget calls for (27+ addresses left at 3 a session), not one per address.
    expect(later.length).toBeLessThanOrEqual(20);
    const keys = await t.redis.keys(`${t.env.REDIS_PREFIX}errors:*`);
    expect(keys).toHaveLength(1);
    expect(await t.redis.get(keys[0]!)).toBe('5');
  }, 120_000);
});
