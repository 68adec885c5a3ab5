// Verdict accuracy against real-world failure shapes, end to end through the simulated
// internet and a real probe node: MX hosts that do not exist (domain_absent) against MX hosts whose
// lookups fail (retry, then unknown); a server answering 451 4.3.0 to everyone (short ladder, then
// unknown/temp_failure) against a greylisting one (the greylist ladder, then deliverable).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobItemDoc } from '@dv/contracts';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle, type WorldInput } from '@dv/world';
import { startHarness, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from './testing/jobs.ts';

let t: Harness;
let world: WorldHandle;

// Ladders scaled by 0.005: temporary 5, 20 min -> 1.5 s, 6 s; greylist 5, 12, 20, 45, 75 min ->
// 1.5, 3.6, 6, 13.5, 22.5 s. slowgrey.test greylists for 8 s: past the whole short ladder, so only
// the greylist ladder (its 4th step) gets through.
const LADDERS = { GREYLIST_LADDER_SCALE: '0.005', SWEEP_INTERVAL_MS: '100' };
const GREYLIST_SECONDS = 8;

beforeAll(async () => {
  const w = loadWorld(DEFAULT_WORLD_PATH);
  w.dns.records.push(
    // badmx.test (default world): its one MX host name does not exist. twobadmx.test: neither does.
    { name: 'twobadmx.test', type: 'MX', priority: 10, exchange: 'mx1.gone.test', ttl: 300 },
    { name: 'twobadmx.test', type: 'MX', priority: 20, exchange: 'mx2.gone.test', ttl: 300 },
    { name: 'mxservfail.test', type: 'MX', priority: 10, exchange: 'mx.sf-host.test', ttl: 300 },
    { name: 'mxtimeout.test', type: 'MX', priority: 10, exchange: 'mx.to-host.test', ttl: 300 },
    // One host absent, the other's lookup fails: it may exist, so no verdict on the domain.
    { name: 'halfbadmx.test', type: 'MX', priority: 10, exchange: 'mx3.gone.test', ttl: 300 },
    { name: 'halfbadmx.test', type: 'MX', priority: 20, exchange: 'mx.sf-host.test', ttl: 300 },
    { name: 'tempfail.test', type: 'MX', priority: 10, exchange: 'mx.tempfail.test', ttl: 300 },
    { name: 'mx.tempfail.test', type: 'A', address: '127.0.10.10', ttl: 300 },
    { name: 'slowgrey.test', type: 'MX', priority: 10, exchange: 'mx.slowgrey.test', ttl: 300 },
    { name: 'mx.slowgrey.test', type: 'A', address: '127.0.10.20', ttl: 300 },
  );
  const input: WorldInput = {
    ...w,
    dns: { ...w.dns, behaviours: { ...w.dns.behaviours, 'mx.sf-host.test': { servfail: true }, 'mx.to-host.test': { timeout: true } } },
    smtp: {
      hosts: [
        ...w.smtp.hosts,
        { name: 'mx.tempfail.test', ip: '127.0.10.10', mailboxes: ['user@tempfail.test'], behaviour: { temporaryFailure: true } },
        { name: 'mx.slowgrey.test', ip: '127.0.10.20', mailboxes: ['user@slowgrey.test'], behaviour: { greylistSeconds: GREYLIST_SECONDS } },
      ],
    },
  };
  world = await startWorld(input);
  t = await startHarness('accuracy');
  await t.startProbe('a-node', ['127.0.0.1'], world.env);
  await t.startScheduler({ ...world.env, ...LADDERS });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

async function verify(emails: string[], timeoutMs = 60_000): Promise<Map<string, JobItemDoc>> {
  const { job } = await createTestJob(t.db, t.nc, emails);
  await waitForJob(t.db, job._id, timeoutMs);
  return new Map((await itemsOf(t.db, job._id)).map((i) => [i.email, i]));
}

const verdictOf = (i: JobItemDoc | undefined) => [i?.result?.status, i?.result?.sub_status];
/** From the item's first attempt to its verdict (sessions may share a kept-open connection, so they are not counted). */
const spanMs = (i: JobItemDoc) => new Date(i.result!.checked_at).getTime() - new Date(i.first_attempt_at!).getTime();

describe('MX hosts that do not resolve', () => {
  it('every MX host NXDOMAIN: undeliverable/domain_absent without a probe; a failing host lookup: retried, then unknown', async () => {
    const items = await verify(['x@badmx.test', 'x@twobadmx.test', 'x@mxservfail.test', 'x@mxtimeout.test', 'x@halfbadmx.test', 'alice@acme.test']);
    expect(Object.fromEntries([...items].map(([email, i]) => [email, verdictOf(i)]))).toEqual({
      'x@badmx.test': ['undeliverable', 'domain_absent'],
      'x@twobadmx.test': ['undeliverable', 'domain_absent'],
      'x@mxservfail.test': ['unknown', 'temp_failure'],
      'x@mxtimeout.test': ['unknown', 'timeout'],
      'x@halfbadmx.test': ['unknown', 'temp_failure'],
      'alice@acme.test': ['deliverable', 'mailbox_confirmed'],
    });
    const absent = items.get('x@twobadmx.test')!.result!;
    expect(absent.domain.mx_provider).toBe('none');
    expect(absent.attempts).toBe(0);
    expect(absent.decision.retry_after_seconds).toBeUndefined();
    expect(items.get('x@mxservfail.test')!.result!.decision.retry_after_seconds).toBeGreaterThan(0);
    // What decided, kept for people to read: the MX host, its reply, the catch-all probe; nothing
    // for a domain no probe reached.
    expect(items.get('alice@acme.test')!.evidence).toMatchObject({ mx_host: 'mx1.acme.test', reply: { code: 250 }, catch_all_probe: 'refused' });
    expect(items.get('x@twobadmx.test')!.evidence).toBeUndefined();
    // Both hosts of twobadmx.test were asked (A, then AAAA); the failing host's lookup was retried.
    const asked = (name: string, type?: string) => world.dns.queries.filter((q) => q.name.toLowerCase() === name && (!type || q.type === type)).length;
    for (const host of ['mx1.gone.test', 'mx2.gone.test']) {
      expect(asked(host, 'A')).toBeGreaterThanOrEqual(1);
      expect(asked(host, 'AAAA')).toBeGreaterThanOrEqual(1);
    }
    expect(asked('mx.sf-host.test', 'A')).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe('temporary failures that are not greylisting', () => {
  it('451 4.3.0 to every RCPT ends unknown/temp_failure after the short ladder; greylisting rides its own ladder', async () => {
    world.reset();
    const started = Date.now();
    const items = await verify(['user@tempfail.test', 'user@slowgrey.test'], 90_000);

    const failed = items.get('user@tempfail.test')!;
    expect(verdictOf(failed)).toEqual(['unknown', 'temp_failure']);
    expect(failed.result!.decision.retry_after_seconds).toBeGreaterThan(0);
    // Three attempts (first try + the two steps of the short ladder), each one MAIL transaction,
    // every RCPT (the catch-all probe's too) answered 451 4.3.0.
    expect(failed.attempts).toBe(3);
    expect(failed.evidence).toMatchObject({ mx_host: 'mx.tempfail.test', reply: { code: 451, enhanced: '4.3.0' } });
    const host = world.hosts.get('mx.tempfail.test')!;
    expect(host.commands.filter((c) => /^MAIL /i.test(c))).toHaveLength(3);
    const rcptReplies = host.sessions.flatMap((s) => s.replies.filter((r) => /^(250 2\.1\.5|451|550)/.test(r)));
    expect(rcptReplies.length).toBeGreaterThanOrEqual(6);
    for (const r of rcptReplies) expect(r).toMatch(/^451 4\.3\.0 /);
    // Done on the short ladder (last step 6 s), well before the greylist ladder's 4th step (13.5 s).
    expect(spanMs(failed)).toBeLessThan(12_000);

    const grey = items.get('user@slowgrey.test')!;
    expect(verdictOf(grey)).toEqual(['deliverable', 'mailbox_confirmed']);
    // Still greylisted after the short ladder's last step: only the greylist ladder got through.
    expect(grey.attempts).toBeGreaterThanOrEqual(4);
    expect(spanMs(grey)).toBeGreaterThanOrEqual(GREYLIST_SECONDS * 1000);
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 120_000);
});
