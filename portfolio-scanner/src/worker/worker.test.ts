// Scan workers against real NATS (a private nats-server), MongoDB and the simulated DNS world:
// priority scans within seconds, once per slot whatever the number of workers and copies of a
// message, crash recovery without duplicate change records, failure backoff and give-up, drain.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { COLLECTIONS, type ChangeDoc, type CorpusDomainDoc, type PortfolioScanMessage } from '@dv/contracts';
import { addDomains, slotOf, storeScan, storeScans } from '../store/index.ts';
import { outcome } from '../store/fixtures.ts';
import { registerQueueGauges, SCAN_METRICS } from './metrics.ts';
import { readQueueFigures } from './queue.ts';
import { requestScan } from './request.ts';
import { oldestMessage, SCAN_SUBJECTS } from './stream.ts';
import { counterValue, startScanHarness, TEST_ACK_WAIT_MS, TEST_MAX_DELIVER, until, type ScanHarness } from './testing/harness.ts';

const INTERVAL_S = 86_400;
let h: ScanHarness;

beforeAll(async () => {
  h = await startScanHarness('worker');
}, 60_000);
afterEach(async () => {
  await h?.killWorkers();
});
afterAll(async () => {
  await h?.stop();
});

const corpus = () => h.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
const changes = () => h.db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name);
const scanCount = async (domain: string) => (await corpus().findOne({ _id: domain }))?.scan_count ?? 0;
const queueEmpty = async () => (await oldestMessage(h.nc, SCAN_SUBJECTS.priority)) === null && (await oldestMessage(h.nc, SCAN_SUBJECTS.rescan)) === null;
const scans = (w: { registry: Parameters<typeof counterValue>[0] }, outcome: string) => counterValue(w.registry, SCAN_METRICS.scans, { outcome });
const never = () => new Promise<never>(() => undefined);

/** A domain watched by one account and scanned once in the previous slot with made-up values, so this slot's scan changes fields. */
async function watchedWithHistory(domain: string): Promise<number> {
  await addDomains(h.db, 'acc_hist', [domain], { intervalS: INTERVAL_S });
  const slot = slotOf(domain, new Date(), INTERVAL_S);
  const before = new Date(Date.now() - INTERVAL_S * 1000);
  await storeScan(h.db, domain, slot - INTERVAL_S * 1000, outcome(before, { mx: '10 old-mx.example.test', email_gateway: 'Old Gateway' }), { intervalS: INTERVAL_S, now: before });
  return slot;
}

describe('scan workers', () => {
  it('scans a domain just added within seconds, sweeping every DKIM selector on its first scan', async () => {
    const w = await h.startWorker();
    const domain = 'pf-google.test';
    await addDomains(h.db, 'acc_new', [domain], { intervalS: INTERVAL_S });
    const t0 = Date.now();
    const [req] = await requestScan(h.nc, [domain], { intervalS: INTERVAL_S });
    await until(async () => (await scanCount(domain)) === 1, 5_000, 'first scan stored');
    expect(Date.now() - t0).toBeLessThan(5_000);
    const doc = (await until(() => corpus().findOne({ _id: domain, last_full_dkim_at: { $ne: null } }), 2_000, 'sweep recorded'))!;
    expect(doc.last_slot).toBe(req!.slot);
    expect(doc.result?.mx).toContain('aspmx.l.google.com');
    expect(doc.result?.dkim_selectors).toBe('google');
    expect(doc.next_scan_at!.getTime()).toBeGreaterThan(Date.now());
    await until(async () => (await scans(w, 'stored')) === 1, 5_000, 'store counted');
    await w.stop();
  });

  it('two workers store each domain once per slot: two accounts, duplicate requests and extra copies of every message', async () => {
    const [a, b] = [await h.startWorker(), await h.startWorker()];
    const domains = ['pf-m365.test', 'pf-baddmarc.test', 'senders.test', 'acme.test', 'pf-partial.test'];
    await addDomains(h.db, 'acc_one', domains, { intervalS: INTERVAL_S });
    await addDomains(h.db, 'acc_two', domains, { intervalS: INTERVAL_S });
    expect((await corpus().findOne({ _id: 'acme.test' }))?.watchers).toBe(2);
    // Both accounts' API calls ask for the same slot: the second is a duplicate id.
    const first = await requestScan(h.nc, domains, { intervalS: INTERVAL_S });
    const second = await requestScan(h.nc, domains, { intervalS: INTERVAL_S });
    expect(first.every((r) => !r.duplicate)).toBe(true);
    expect(second.every((r) => r.duplicate)).toBe(true);
    // Copies that escape de-duplication (as after the duplicate window), on both subjects.
    const js = (await jetstreamManager(h.nc)).jetstream();
    for (const r of first) {
      const msg: PortfolioScanMessage = { domain: r.domain, slot: r.slot, reason: 'due' };
      await js.publish(SCAN_SUBJECTS.rescan, JSON.stringify(msg), { msgID: `${r.domain}:${r.slot}:copy1` });
      await js.publish(SCAN_SUBJECTS.priority, JSON.stringify(msg), { msgID: `${r.domain}:${r.slot}:copy2` });
    }
    const handled = async () => (await scans(a, 'stored')) + (await scans(b, 'stored')) + (await scans(a, 'unchanged_slot')) + (await scans(b, 'unchanged_slot'));
    await until(async () => (await handled()) === domains.length * 3 && (await queueEmpty()), 20_000, 'every message handled');
    for (const d of domains) expect(await scanCount(d), d).toBe(1);
    expect((await scans(a, 'stored')) + (await scans(b, 'stored'))).toBe(domains.length);
    expect(await changes().countDocuments({ domain_name: { $in: domains } })).toBe(0);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a scan waiting for its store gives its place back: with one place, the next domain is scanned and stored meanwhile', async () => {
    const [slow, next] = ['slowstore-a.test', 'slowstore-b.test'];
    await addDomains(h.db, 'acc_slow', [slow, next], { intervalS: INTERVAL_S });
    const scanned: string[] = [];
    let openStore = () => undefined as void;
    const gate = new Promise<void>((resolve) => (openStore = resolve));
    const w = await h.startWorker({
      config: { PORTFOLIO_SCAN_CONCURRENCY: 1 },
      scanDomain: async (domain) => {
        scanned.push(domain);
        return outcome(new Date());
      },
      // Only the slow domain's store waits, even when both scans ended up in one store group.
      storeScans: (db, group, opts) => Promise.all(group.map(async (s) => {
        if (s.domain === slow) await gate;
        return (await storeScans(db, [s], opts))[0]!;
      })),
    });
    await requestScan(h.nc, [slow], { intervalS: INTERVAL_S });
    await until(() => scanned.length === 1, 5_000, 'first domain scanned');
    await requestScan(h.nc, [next], { intervalS: INTERVAL_S });
    await until(async () => (await scanCount(next)) === 1, 5_000, 'second domain scanned and stored while the first store waits');
    expect(await scanCount(slow)).toBe(0);
    openStore();
    await until(async () => (await scanCount(slow)) === 1, 5_000, 'first domain stored');
    expect(scanned).toEqual([slow, next]);
    await w.stop();
  });

  it('a worker killed mid-scan leaves the domain to another worker, with one change record per changed field', async () => {
    const domain = 'pf-proofpoint.test';
    const slot = await watchedWithHistory(domain);
    const a = await h.startWorker({ scanDomain: never });
    await requestScan(h.nc, [domain], { intervalS: INTERVAL_S });
    await until(() => a.worker.inFlight === 1, 5_000, 'scan in hand');
    await a.kill();
    const b = await h.startWorker();
    await until(async () => (await scanCount(domain)) === 2, TEST_ACK_WAIT_MS + 8_000, 'scanned by the other worker');
    const records = await changes().find({ domain_name: domain }).toArray();
    expect(records.map((r) => r.field_name).sort()).toEqual(expect.arrayContaining(['email_gateway', 'mx']));
    expect(new Set(records.map((r) => r.field_name)).size).toBe(records.length);
    expect(records.every((r) => r.slot === slot)).toBe(true);
    // Counted once the grouped store has answered the scan: a moment after the commit seen above.
    await until(async () => (await scans(b, 'stored')) === 1, 5_000, 'store counted by the other worker');
    await b.stop();
  });

  it('a worker killed after storing but before acking: the redelivery stores nothing and writes no second record', async () => {
    const domain = 'pf-mimecast.test';
    await watchedWithHistory(domain);
    const a = await h.startWorker({
      storeScans: async (db, group, opts) => {
        await storeScans(db, group, opts);
        return never();
      },
    });
    await requestScan(h.nc, [domain], { intervalS: INTERVAL_S });
    await until(async () => (await scanCount(domain)) === 2, 5_000, 'stored by the first worker');
    const recorded = await changes().countDocuments({ domain_name: domain });
    expect(recorded).toBeGreaterThanOrEqual(2);
    await a.kill();
    const b = await h.startWorker();
    await until(async () => (await scans(b, 'unchanged_slot')) === 1, TEST_ACK_WAIT_MS + 8_000, 'redelivery handled');
    expect(await scanCount(domain)).toBe(2);
    expect(await changes().countDocuments({ domain_name: domain })).toBe(recorded);
    // The ack goes out without a reply: the server drops the message a moment after it is counted.
    await until(queueEmpty, 5_000, 'redelivered message acked');
    await b.stop();
  });

  it('a planned rescan starts from the planner\'s read on its first delivery; a redelivery reads the document', async () => {
    const domain = 'planned-start.example.test';
    const slot = await watchedWithHistory(domain);
    const js = (await jetstreamManager(h.nc)).jetstream();
    const publish = (start: PortfolioScanMessage['start'], id: string) => js.publish(SCAN_SUBJECTS.rescan, JSON.stringify({ domain, slot, reason: 'due', start } satisfies PortfolioScanMessage), { msgID: id });
    const stale = { last_slot: slot - INTERVAL_S * 1000, last_full_dkim_at: null, dkim_selectors: null, ns: null };
    // The message says this slot is stored (the document says not): not scanned, so not read either.
    let scanned = 0;
    const counting: NonNullable<Parameters<typeof h.startWorker>[0]>['scanDomain'] = async () => {
      scanned++;
      return never();
    };
    const a = await h.startWorker({ scanDomain: counting });
    await publish({ ...stale, last_slot: slot }, `${domain}:claims-stored`);
    await until(async () => (await scans(a, 'unchanged_slot')) === 1, 5_000, 'first delivery handled');
    expect(scanned).toBe(0);
    // A stale start: the first delivery scans (and hangs); another worker stores the slot meanwhile.
    await publish(stale, `${domain}:stale`);
    await until(() => scanned === 1, 5_000, 'first delivery scanning');
    await storeScan(h.db, domain, slot, outcome(new Date()), { intervalS: INTERVAL_S });
    await a.kill();
    // The redelivery reads the document, which says stored: no second scan, nothing written.
    const b = await h.startWorker({ scanDomain: counting });
    await until(async () => (await scans(b, 'unchanged_slot')) === 1, TEST_ACK_WAIT_MS + 8_000, 'redelivery handled');
    expect(scanned).toBe(1);
    expect(await scanCount(domain)).toBe(2);
    await b.stop();
  });

  it('a failing scan is retried with backoff, then ended after the last delivery; the domain waits for its next slot', async () => {
    const domain = 'failing.example.test';
    await addDomains(h.db, 'acc_fail', [domain], { intervalS: INTERVAL_S });
    const w = await h.startWorker({
      scanDomain: async () => {
        throw new Error('resolver exploded');
      },
    });
    const t0 = Date.now();
    await requestScan(h.nc, [domain], { intervalS: INTERVAL_S });
    await until(async () => (await scans(w, 'gave_up')) === 1, 10_000, 'given up');
    expect(await scans(w, 'failed')).toBe(TEST_MAX_DELIVER - 1);
    // Backoff of 100 ms then 200 ms between the three deliveries.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    await until(queueEmpty, 2_000, 'message ended');
    const doc = await corpus().findOne({ _id: domain });
    expect(doc?.scan_count).toBe(0);
    expect(doc?.next_scan_at?.getTime()).toBeGreaterThan(Date.now());
    await w.stop();
  });

  it('drain: a scan that finishes within the budget is acked, one that does not is given back at once', async () => {
    const [quick, stuck] = ['drain-quick.example.test', 'drain-stuck.example.test'];
    await addDomains(h.db, 'acc_drain', [quick, stuck], { intervalS: INTERVAL_S });
    // The quick scan is held until both are in hand, however slowly the machine hands the worker
    // its messages, and let go as the drain begins.
    let begun = 0;
    let letQuickGo!: () => void;
    const quickMayEnd = new Promise<void>((r) => (letQuickGo = r));
    const a = await h.startWorker({
      scanDomain: async (domain) => {
        begun++;
        if (domain === stuck) return never();
        await quickMayEnd;
        await new Promise((r) => setTimeout(r, 100));
        return outcome(new Date());
      },
    });
    await requestScan(h.nc, [quick, stuck], { intervalS: INTERVAL_S });
    await until(() => begun === 2, 15_000, 'both scans begun');
    expect(a.worker.inFlight).toBe(2);
    // Waiting already, so it takes the given-back message the moment it returns.
    const b = await h.startWorker();
    const heldAt = Date.now();
    letQuickGo();
    await a.stop(500);
    expect(await scanCount(quick)).toBe(1);
    // Given back (nak), not left to expire: taken well before the ack wait would have run out.
    await until(async () => (await scanCount(stuck)) === 1, 5_000, 'taken by another worker');
    expect(Date.now() - heldAt).toBeLessThan(TEST_ACK_WAIT_MS - 200);
    await b.stop();
  });

  it('queue gauges: age of the oldest waiting message by priority, and domains overdue by more than 10% of the interval', async () => {
    await until(queueEmpty, 5_000, 'earlier tests\' messages acked');
    const waiting = 'waiting.example.test';
    await addDomains(h.db, 'acc_gauges', [waiting, 'overdue.example.test'], { intervalS: INTERVAL_S });
    await corpus().updateOne({ _id: 'overdue.example.test' }, { $set: { next_scan_at: new Date(Date.now() - INTERVAL_S * 1000 * 0.2) } });
    await requestScan(h.nc, [waiting], { intervalS: INTERVAL_S });
    await new Promise((r) => setTimeout(r, 1_100));
    const figures = await readQueueFigures(h.nc, h.db, INTERVAL_S);
    expect(figures.lagS.priority).toBeGreaterThanOrEqual(1);
    expect(figures.lagS.priority).toBeLessThan(10);
    expect(figures.lagS.rescan).toBe(0);
    // `waiting` is due now (not yet 10% of the interval late); the other is.
    expect(figures.overdue).toBe(1);
    const registry = new Registry();
    registerQueueGauges(registry, () => readQueueFigures(h.nc, h.db, INTERVAL_S), 0);
    const text = await registry.metrics();
    expect(text).toMatch(/portfolio_queue_lag_seconds\{priority="priority"\} [1-9]/);
    expect(text).toContain('portfolio_queue_lag_seconds{priority="rescan"} 0');
    expect(text).toContain('portfolio_domains_overdue 1');
  });
});
