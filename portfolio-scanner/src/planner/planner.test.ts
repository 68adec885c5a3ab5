// The rescan planner against real NATS, Redis, MongoDB and the simulated DNS world: the lease
// passes to another replica when its holder dies; with PORTFOLIO_RESCAN_INTERVAL_S=20 every
// monitored domain is rescanned once per slot, near its due time, over two intervals (while the
// planner replica holding the lease is killed halfway); a lost message is published again, a
// queued one is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { COLLECTIONS, type CorpusDomainDoc, type PlanTickDoc, type PortfolioScanMessage } from '@dv/contracts';
import { outcome } from '../store/fixtures.ts';
import { addDomains, slotOf, storeScan, storeScans } from '../store/index.ts';
import { PORTFOLIO_STREAM } from '../worker/stream.ts';
import { startScanHarness, until, type ScanHarness } from '../worker/testing/harness.ts';

let h: ScanHarness;

beforeAll(async () => {
  h = await startScanHarness('planner');
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const corpus = () => h.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
const ticks = () => h.db.collection<PlanTickDoc>(COLLECTIONS.portfolioPlanTicks.name);
/** The stream sequence of the domain's latest planned message, from its tick's document. */
const plannedSeq = async (domain: string): Promise<number | undefined> => {
  const tick = (await corpus().findOne({ _id: domain }))?.planned_tick;
  const t = tick ? await ticks().findOne({ _id: tick }) : null;
  return t ? t.seqs[t.domains.indexOf(domain)] : undefined;
};

describe('rescan planner', () => {
  it('one lease holder at a time; a dead holder is replaced after the lease, a stopped one at once', async () => {
    const prefix = { REDIS_PREFIX: `${h.redisPrefix}lease:`, PORTFOLIO_PLANNER_LEASE_MS: 900 };
    const a = await h.startPlanner(prefix);
    const b = await h.startPlanner(prefix);
    const holder = await until(() => (a.planner.lease.held ? a : b.planner.lease.held ? b : null), 3_000, 'a holder');
    const other = holder === a ? b : a;
    expect(other.planner.lease.held).toBe(false);
    holder.kill();
    const killedAt = Date.now();
    let both = false;
    await until(() => {
      both ||= holder.planner.lease.held && other.planner.lease.held;
      return other.planner.lease.held;
    }, 3_000, 'lease taken over');
    expect(both).toBe(false);
    // Not before the dead holder's lease ran out.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(300);
    const c = await h.startPlanner(prefix);
    await other.stop();
    await until(() => c.planner.lease.held, 800, 'released lease taken at once');
    await c.stop();
  });

  it('publishes a lost message again after the grace, and leaves a queued one alone', async () => {
    const [lost, queued] = ['lost.example.test', 'queued.example.test'];
    await addDomains(h.db, 'acc_lost', [lost, queued], { intervalS: 86_400 });
    // `queued` was scanned in its previous slot: its message carries that scan's start.
    const before = new Date(Date.now() - 86_400_000);
    const prevSlot = slotOf(queued, before, 86_400);
    await storeScan(h.db, queued, prevSlot, outcome(before, { ns: 'ns1.q.test, ns2.q.test', dkim_selectors: 'google, s1' }), { intervalS: 86_400, now: before });
    const p = await h.startPlanner({ REDIS_PREFIX: `${h.redisPrefix}lost:`, PORTFOLIO_PLAN_GRACE_S: 1, PORTFOLIO_PLAN_DELAY_MS: 0 }, { start: false });
    const t0 = new Date();
    expect(await p.planner.tick(t0)).toEqual({ published: 2, republished: 0, stillQueued: 0 });
    // One tick document for both, read by the domains' `planned_tick`.
    expect((await corpus().findOne({ _id: lost }))!.planned_tick).toBe((await corpus().findOne({ _id: queued }))!.planned_tick);
    const sent = await (await jetstreamManager(h.nc)).streams.getMessage(PORTFOLIO_STREAM, { seq: (await plannedSeq(queued))! });
    expect(sent?.json<PortfolioScanMessage>().start).toEqual({ last_slot: prevSlot, last_full_dkim_at: null, dkim_selectors: 'google, s1', ns: 'ns1.q.test, ns2.q.test' });
    // Marked: not published again by the next tick.
    expect(await p.planner.tick(new Date(t0.getTime() + 100))).toEqual({ published: 0, republished: 0, stillQueued: 0 });
    const lostDoc = (await corpus().findOne({ _id: lost }))!;
    expect(slotOf(lost, lostDoc.planned_at!, 86_400)).toBe(slotOf(lost, t0, 86_400));
    const lostSeq = (await plannedSeq(lost))!;
    expect(lostSeq).toBeGreaterThan(0);
    await (await jetstreamManager(h.nc)).streams.deleteMessage(PORTFOLIO_STREAM, lostSeq);
    const later = new Date(t0.getTime() + 1_500);
    expect(await p.planner.tick(later)).toEqual({ published: 0, republished: 1, stillQueued: 1 });
    expect(await plannedSeq(lost)).not.toBe(lostSeq);
    expect((await corpus().findOne({ _id: lost }))!.planned_tick).not.toBe(lostDoc.planned_tick);
    // A tick document gone (its TTL) is a message that cannot be found: published again too.
    await ticks().deleteOne({ _id: (await corpus().findOne({ _id: queued }))!.planned_tick! });
    const third = new Date(later.getTime() + 1_500);
    expect(await p.planner.tick(third)).toEqual({ published: 0, republished: 1, stillQueued: 1 });
    expect(await plannedSeq(queued)).toBeGreaterThan(lostSeq);
    // A worker stores both once; the planner then leaves them until their next slot.
    const w = await h.startWorker();
    await until(async () => (await corpus().countDocuments({ _id: lost, scan_count: 1 })) + (await corpus().countDocuments({ _id: queued, scan_count: 2 })) === 2, 5_000, 'both scanned');
    expect(await p.planner.tick(new Date(third.getTime() + 1_500))).toEqual({ published: 0, republished: 0, stillQueued: 0 });
    await w.stop();
    await p.stop();
  });

  it('a shortened interval brings domains planned under the longer one within it; due times within it stay', async () => {
    const WEEK_S = 7 * 86_400;
    const HOUR_S = 3_600;
    const names = Array.from({ length: 12 }, (_, i) => `shrink-${i}.example.test`);
    const before = new Date(Date.now() - 60_000);
    await addDomains(h.db, 'acc_shrink', names, { intervalS: WEEK_S, now: before });
    for (const d of names) await storeScan(h.db, d, slotOf(d, before, WEEK_S), outcome(before), { intervalS: WEEK_S, now: before });
    const near = 'shrink-near.example.test';
    await addDomains(h.db, 'acc_shrink', [near], { intervalS: HOUR_S, now: before });
    await storeScan(h.db, near, slotOf(near, before, HOUR_S), outcome(before), { intervalS: HOUR_S, now: before });
    const nearDue = (await corpus().findOne({ _id: near }))!.next_scan_at!;
    const now = new Date();
    // Planned a week out, most of them past an hour.
    const dues = async () => new Map((await corpus().find({ _id: { $in: [...names, near] } }).toArray()).map((d) => [d._id, d.next_scan_at!.getTime()]));
    const planned = await dues();
    expect([...planned.values()].filter((t) => t > now.getTime() + HOUR_S * 1000).length).toBeGreaterThan(6);

    const p = await h.startPlanner({ REDIS_PREFIX: `${h.redisPrefix}shrink:`, PORTFOLIO_RESCAN_INTERVAL_S: HOUR_S }, { start: false });
    expect(await p.planner.tick(now)).toMatchObject({ published: 0, republished: 0 });
    const after = await dues();
    // Each at its own phase of the new interval; one already due within it keeps its time.
    for (const d of names) expect(after.get(d), d).toBe(planned.get(d)! <= now.getTime() + HOUR_S * 1000 ? planned.get(d) : slotOf(d, now, HOUR_S) + HOUR_S * 1000);
    expect(after.get(near)).toBe(nearDue.getTime());
    await p.stop();
    // Not monitored any more: the next test's planners own the corpus.
    await corpus().updateMany({ _id: { $in: [...names, near] } }, { $set: { watchers: 0, next_scan_at: null } });
  });

  it('with a 20 s interval every monitored domain is rescanned once per slot over two intervals, near its due time, while the lease holder dies', async () => {
    const INTERVAL_S = 20;
    const domains = ['pf-google.test', 'pf-m365.test', 'pf-mimecast.test', 'pf-proofpoint.test', 'pf-baddmarc.test', 'acme.test', 'senders.test', 'gone-1.example.test', 'gone-2.example.test', 'gone-3.example.test'];
    const stores: Array<{ domain: string; slot: number; stored: boolean; began: number; at: number }> = [];
    const config = { PORTFOLIO_RESCAN_INTERVAL_S: INTERVAL_S };
    const recording = {
      storeScans: async (...[db, group, opts]: Parameters<typeof storeScans>) => {
        const began = Date.now();
        const results = await storeScans(db, group, { ...opts, now: new Date(began) });
        group.forEach((s, i) => stores.push({ domain: s.domain, slot: s.slot, stored: results[i]!.stored, began, at: Date.now() }));
        return results;
      },
    };
    const workers = [await h.startWorker({ config, ...recording }), await h.startWorker({ config, ...recording })];
    const plannerConfig = { REDIS_PREFIX: `${h.redisPrefix}rescan:`, PORTFOLIO_RESCAN_INTERVAL_S: INTERVAL_S, PORTFOLIO_PLAN_DELAY_MS: 300 };
    const planners = [await h.startPlanner(plannerConfig), await h.startPlanner(plannerConfig)];
    const t0 = Date.now();
    // Added without a priority request: the planner alone publishes them.
    await addDomains(h.db, 'acc_rescan', domains, { intervalS: INTERVAL_S });
    await addDomains(h.db, 'acc_rescan_2', domains.slice(0, 3), { intervalS: INTERVAL_S });

    await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
    const holder = planners.find((p) => p.planner.lease.held);
    expect(holder).toBeDefined();
    holder!.kill();
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, INTERVAL_S * 1000 + 2_500));
    const tEnd = Date.now();
    await Promise.all(workers.map((w) => w.stop()));

    // Due times in the window that must have been scanned: the first (at the add) and every due time up to tEnd less a margin.
    const MARGIN_MS = 4_500;
    for (const domain of domains) {
      const mine = stores.filter((s) => s.domain === domain && s.stored);
      const slots = mine.map((s) => s.slot);
      expect(new Set(slots).size, `${domain}: one store per slot`).toBe(slots.length);
      // The first scan is in the slot of the add, or in the next one when its due time came
      // while the first scan was being planned (then that one scan serves both).
      const atAdd = slotOf(domain, new Date(t0), INTERVAL_S);
      const first = slots[0] === atAdd + INTERVAL_S * 1000 && slots[0] - t0 < 3_000 ? slots[0] : atAdd;
      const expected = [first];
      // A due time that passed while the first scan was in flight (planned, scanned, then stored
      // after it) is served by that scan: the store plans the next scan from the time it began
      // (its transaction's clock, not when it returned: a due time that falls during the
      // transaction is still planned, since the scan saw the domain before it).
      let next = first + INTERVAL_S * 1000;
      while (next <= (mine[0]?.began ?? 0)) next += INTERVAL_S * 1000;
      for (let s = next; s <= tEnd - MARGIN_MS; s += INTERVAL_S * 1000) expected.push(s);
      // On failure the message shows each store's slot and lateness against the lease holder's kill.
      const story = `${domain}: stores ${JSON.stringify(mine.map((m) => ({ slot: m.slot - t0, late_ms: m.at - m.slot })))}, killed at ${killedAt - t0}, window end ${tEnd - t0} (ms after the add)`;
      expect(slots.slice(0, expected.length), story).toEqual(expected);
      expect(slots.length - expected.length, `${domain}: no slot beyond the window`).toBeLessThanOrEqual(1);
      for (const s of mine.slice(1)) expect(s.at - s.slot, `${domain} slot ${s.slot} scanned late`).toBeLessThan(MARGIN_MS);
      expect((await corpus().findOne({ _id: domain }))?.scan_count).toBe(mine.length);
    }
  }, 60_000);
});
