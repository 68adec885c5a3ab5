// Every verdict path from a published item to the stored result, against the simulated internet
// and two real probe-node processes (a-node on 127.0.0.1, b-node on 127.0.0.2); greylisting on
// the (scaled) ladder, also across a scheduler restart; a policy block moving to the other node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobItemDoc } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import { startHarness, until, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';
import { startSchedulerWorld } from '../testing/world.ts';

let t: Harness;
let world: WorldHandle;
let stopScheduler: () => Promise<void>;
// greylist.test greylists for 2 s: the first ladder step (5 min) scaled to 3 s lets the retry through.
const LADDER = { GREYLIST_LADDER_SCALE: '0.01', BATCH_WINDOW_MS: '400' };

beforeAll(async () => {
  t = await startHarness('live');
  world = await startSchedulerWorld();
  await Promise.all([t.startProbe('a-node', ['127.0.0.1'], world.env), t.startProbe('b-node', ['127.0.0.2'], world.env)]);
  stopScheduler = (await t.startScheduler({ ...world.env, ...LADDER })).stop;
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

async function verify(emails: string[]): Promise<Map<string, JobItemDoc>> {
  const { job } = await createTestJob(t.db, t.nc, emails);
  await waitForJob(t.db, job._id, 60_000);
  return new Map((await itemsOf(t.db, job._id)).map((i) => [i.email, i]));
}

describe('verdict paths', () => {
  it('stores the right verdict for each kind of address', async () => {
    const cases: Record<string, [string, string]> = {
      'alice@acme.test': ['deliverable', 'mailbox_confirmed'],
      'nobody@acme.test': ['undeliverable', 'mailbox_absent'],
      'carol@acme.test': ['risky', 'mailbox_full'],
      'someone@catchall.test': ['risky', 'catch_all'],
      'anyone@yahoo-like.test': ['risky', 'accept_all_provider'],
      'user@noverify.test': ['unknown', 'no_signal'],
      'x@nullmx.test': ['undeliverable', 'domain_absent'],
      'x@nxdomain.test': ['undeliverable', 'domain_absent'],
      'user@aonly.test': ['deliverable', 'mailbox_confirmed'],
      'not-an-address': ['undeliverable', 'syntax'],
      'jane@mailinator.com': ['risky', 'disposable'],
      'x@servfail.test': ['unknown', 'temp_failure'],
      'user@blocked.test': ['unknown', 'provider_blocked'],
    };
    const items = await verify(Object.keys(cases));
    const got = Object.fromEntries([...items].map(([email, i]) => [email, [i.result?.status, i.result?.sub_status]]));
    expect(got).toEqual(cases);
    expect(items.get('alice@acme.test')!.result!.domain.mx_provider).toBe('acme.test');
    expect(items.get('anyone@yahoo-like.test')!.result!.domain.mx_provider).toBe('yahoo');
    expect(items.get('alice@acme.test')!.attempts).toBe(1);
    // One session (one MAIL transaction) for the three acme.test addresses (batched), and never DATA anywhere.
    expect(world.hosts.get('mx1.acme.test')!.commands.filter((c) => /^MAIL /i.test(c))).toHaveLength(1);
    for (const host of world.hosts.values()) expect(host.dataCommands).toBe(0);
  }, 60_000);

  it('answers a domain found catch-all from memory without a new session', async () => {
    // Counted as MAIL transactions: a session may reuse a kept-open connection.
    const probes = () => world.hosts.get('mx.catchall.test')!.commands.filter((c) => /^MAIL /i.test(c)).length;
    const before = probes();
    const items = await verify(['other@catchall.test']);
    expect(items.get('other@catchall.test')!.result!.sub_status).toBe('catch_all');
    expect(probes()).toBe(before);
  });

  it('serves a stored verdict when max_age_days allows, and probes again with force_fresh', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    // Probes are counted as MAIL transactions: a probe may reuse a kept-open connection.
    const probes = () => host.commands.filter((c) => /^MAIL /i.test(c)).length;
    const before = probes();
    const cached = await createTestJob(t.db, t.nc, ['alice@acme.test'], { maxAgeDays: 1 });
    await waitForJob(t.db, cached.job._id);
    const [hit] = await itemsOf(t.db, cached.job._id);
    expect(hit!.result).toMatchObject({ status: 'deliverable', cached: true, ref: 'ref-0' });
    expect(probes()).toBe(before);
    const fresh = await createTestJob(t.db, t.nc, ['alice@acme.test'], { maxAgeDays: 1, forceFresh: true });
    await waitForJob(t.db, fresh.job._id);
    expect((await itemsOf(t.db, fresh.job._id))[0]!.result!.cached).toBe(false);
    expect(probes()).toBe(before + 1);
  });

  it('moves work to another probe node when our IP is policy-blocked', async () => {
    const items = await verify(['user@listed.test']);
    expect(items.get('user@listed.test')!.result!.status).toBe('deliverable');
    const sessions = world.hosts.get('mx.listed.test')!.sessions;
    expect(sessions.some((s) => s.clientIp === '127.0.0.2')).toBe(true);
    // blocked.test blocks both IPs: both were tried, and the answer is never undeliverable.
    const blocked = world.hosts.get('mx.blocked.test')!.sessions.map((s) => s.clientIp);
    expect(new Set(blocked)).toEqual(new Set(['127.0.0.1', '127.0.0.2']));
  });
});

describe('greylist ladder', () => {
  it('retries a greylisted address from the same source IP and ends deliverable', async () => {
    world.reset();
    const items = await verify(['user@greylist.test']);
    const item = items.get('user@greylist.test')!;
    expect(item.result!.status).toBe('deliverable');
    expect(item.attempts).toBe(2);
    // One MAIL transaction per attempt (the retry may reuse the probe's kept-open connection).
    const ips = world.hosts.get('mx.greylist.test')!.sessions.flatMap((s) => s.commands.filter((c) => /^MAIL /i.test(c)).map(() => s.clientIp));
    expect(ips).toHaveLength(2);
    expect(ips[0]).toBe(ips[1]);
  });

  it('survives a scheduler restart while the item waits on the ladder', async () => {
    world.reset();
    const { job } = await createTestJob(t.db, t.nc, ['user@greylist.test']);
    await until(async () => (await itemsOf(t.db, job._id))[0]?.state === 'waiting_retry', 20_000, 'item parked');
    await stopScheduler();
    stopScheduler = (await t.startScheduler({ ...world.env, ...LADDER })).stop;
    const done = await waitForJob(t.db, job._id, 30_000);
    expect(done.counts.deliverable).toBe(1);
    const [item] = await itemsOf(t.db, job._id);
    expect(item!.attempts).toBe(2);
  }, 60_000);
});
