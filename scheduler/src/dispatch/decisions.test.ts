// Table-driven tests of the pure decisions: MX interpretation, batching, politeness limits and
// pauses, node ranking, per-address decisions after a session, load level, config validation.
import { describe, expect, it } from 'vitest';
import type { ProbeSessionReply } from '@dv/contracts';
import { checkSyntax, GREYLIST_LADDER_MINUTES, providerForMx, RETRY_POLICY, TEMP_FAILURE_LADDER_MINUTES, throttlePauseMs, verdict } from '@dv/verdict';
import { Batcher, batchReady, msUntilReady } from '../live/batcher.ts';
import { retryPolicy, schedulerConfigSchema } from '../config.ts';
import { decideAddress, provesCatchAll } from './decide.ts';
import { downForEveryIp, downForIp, mxDownMarks } from '../politeness/mx-health.ts';
import { hostAddress, interpretAddress, interpretMx, interpretMxHosts } from '../live/dns.ts';
import { rankCandidates } from '../fleet/fleet.ts';
import { nodeState } from '../testing/nodes.ts';
import { computeLoad } from '../load/load.ts';
import { limitsFor } from '../politeness/politeness.ts';

const mx = (exchange: string, priority = 10) => ({ type: 'MX' as const, name: 'd.test', ttl: 300, priority, exchange });

describe('interpretMx / interpretAddress', () => {
  it.each([
    ['NXDOMAIN', [], { done: { kind: 'nxdomain', ttlS: 300 } }],
    ['SERVFAIL', [], { done: { kind: 'servfail' } }],
    ['REFUSED', [], { done: { kind: 'servfail' } }],
    ['TIMEOUT', [], { done: { kind: 'timeout' } }],
    ['NODATA', [], { needAddress: true }],
    ['NOERROR', [mx('.', 0)], { done: { kind: 'null_mx', ttlS: 300 } }],
    ['NOERROR', [mx('mx2.d.test.', 20), mx('MX1.d.test', 10)], { done: { kind: 'ok', mx: ['mx1.d.test', 'mx2.d.test'], implicit: false, ttlS: 300 } }],
    ['NOERROR', [mx('.', 0), mx('mx1.d.test', 10)], { done: { kind: 'ok', mx: ['mx1.d.test'], implicit: false, ttlS: 300 } }],
  ] as const)('%s %j', (rcode, answers, expected) => {
    expect(interpretMx({ rcode, answers: [...answers], ttl: 300 })).toEqual(expected);
  });

  it.each([
    ['NOERROR', 'NODATA', { kind: 'ok', mx: ['d.test'], implicit: true, ttlS: 60 }],
    ['NODATA', 'NOERROR', { kind: 'ok', mx: ['d.test'], implicit: true, ttlS: 60 }],
    ['NODATA', 'NODATA', { kind: 'no_mail_host', ttlS: 60 }],
    ['NXDOMAIN', 'NODATA', { kind: 'no_mail_host', ttlS: 60 }],
    ['SERVFAIL', 'NODATA', { kind: 'servfail' }],
    ['NODATA', 'TIMEOUT', { kind: 'timeout' }],
  ] as const)('A %s, AAAA %s', (a, aaaa, expected) => {
    expect(interpretAddress('D.test', { rcode: a, ttl: 60 }, { rcode: aaaa, ttl: 60 })).toEqual(expected);
  });
});

describe('MX host addresses (RFC 5321 5.1: no fallback to the domain when MX records exist)', () => {
  it.each([
    ['NOERROR', 'NXDOMAIN', 'address'],
    ['NXDOMAIN', 'NOERROR', 'address'],
    ['NXDOMAIN', 'NXDOMAIN', 'absent'],
    ['NODATA', 'NXDOMAIN', 'absent'],
    ['NODATA', 'NODATA', 'absent'],
    ['SERVFAIL', 'NXDOMAIN', 'servfail'],
    ['NXDOMAIN', 'TIMEOUT', 'timeout'],
    ['REFUSED', 'NODATA', 'servfail'],
    ['SERVFAIL', 'NOERROR', 'address'],
  ] as const)('A %s, AAAA %s -> %s', (a, aaaa, state) => {
    expect(hostAddress({ rcode: a }, { rcode: aaaa })).toBe(state);
  });

  const ok = { kind: 'ok' as const, mx: ['mx1.d.test', 'mx2.d.test'], implicit: false, ttlS: 300 };
  it.each([
    ['every host absent', [{ state: 'absent', ttlS: 60 }, { state: 'absent', ttlS: 120 }], { kind: 'mx_hosts_absent', ttlS: 60 }],
    ['one host has an address', [{ state: 'absent', ttlS: 60 }, { state: 'address', ttlS: 300 }], ok],
    ['one absent, one SERVFAIL: may exist', [{ state: 'absent', ttlS: 60 }, { state: 'servfail', ttlS: 0 }], { kind: 'servfail' }],
    ['one absent, one timeout', [{ state: 'absent', ttlS: 60 }, { state: 'timeout', ttlS: 0 }], { kind: 'timeout' }],
    ['not every host judged', [{ state: 'absent', ttlS: 60 }], ok],
  ] as const)('%s', (_what, hosts, expected) => {
    expect(interpretMxHosts(ok, hosts)).toEqual(expected);
  });
});

describe('batching', () => {
  it.each([
    [1, 20, 0, false, 250],
    [1, 20, 250, true, 0],
    [20, 20, 0, true, 0],
    [3, 3, 10, true, 0],
    [5, 20, 100, false, 150],
  ])('%i of %i after %i ms ready=%s', (n, limit, waited, ready, msLeft) => {
    const q = { values: Array(n).fill(0), limit, firstAtMs: 1000 };
    expect(batchReady(q, 1000 + waited, 250)).toBe(ready);
    expect(msUntilReady(q, 1000 + waited, 250)).toBe(msLeft);
  });

  it('queues by domain and source IP; a session takes up to the limit; leftovers are ready at once', () => {
    const b = new Batcher<string>();
    const a = b.add({ domain: 'a.test', preferIp: null, limit: 2, single: false, value: 'a1' }, 0);
    const retry = b.add({ domain: 'a.test', preferIp: '127.0.0.1', limit: 2, single: false, value: 'a-retry' }, 0);
    expect(retry).not.toBe(a);
    b.add({ domain: 'a.test', preferIp: null, limit: 2, single: false, value: 'a2' }, 10);
    b.add({ domain: 'a.test', preferIp: null, limit: 2, single: false, value: 'a3' }, 20);
    expect(b.size).toBe(4);
    expect(b.take(a, 30)).toEqual(['a1', 'a2']);
    expect(batchReady(a, 31, 250)).toBe(true);
    expect(b.take(a, 40)).toEqual(['a3']);
    b.forget(a);
    expect(b.queues.has(a.key)).toBe(false);
  });
});

describe('politeness limits', () => {
  const cfg = { POLITE_MAX_SESSIONS: 0, POLITE_SESSIONS_PER_MIN: 0, POLITE_RCPTS_PER_SESSION: 0, MAX_RCPTS_PER_SESSION: 20 };
  it.each([
    ['gmail-smtp-in.l.google.com', cfg, null, { maxSessions: 5, sessionsPerMin: 10, rcptsPerSession: 20 }],
    ['x.mail.protection.outlook.com', cfg, null, { maxSessions: 2, sessionsPerMin: 10, rcptsPerSession: 3 }],
    ['mta5.am0.yahoodns.net', cfg, null, { maxSessions: 5, sessionsPerMin: 25, rcptsPerSession: 20 }],
    ['mx.example.org', cfg, null, { maxSessions: 5, sessionsPerMin: 60, rcptsPerSession: 20 }],
    ['mx.example.org', cfg, 3, { maxSessions: 5, sessionsPerMin: 60, rcptsPerSession: 3 }],
    ['mx.example.org', { ...cfg, POLITE_MAX_SESSIONS: 2, POLITE_RCPTS_PER_SESSION: 50 }, null, { maxSessions: 2, sessionsPerMin: 60, rcptsPerSession: 20 }],
  ])('%s', (host, config, learned, expected) => {
    expect(limitsFor(providerForMx(host), config, learned)).toEqual(expected);
  });

  it.each([
    [0, 600_000],
    [1, 1_200_000],
    [2, 2_400_000],
    [3, 3_600_000],
    [9, 3_600_000],
  ])('pause after streak %i is %i ms (the scheduler’s settings through @dv/verdict’s rule)', (streak, ms) => {
    expect(throttlePauseMs(streak, retryPolicy(schedulerConfigSchema.parse({})).throttlePause)).toBe(ms);
  });
});

describe('node ranking', () => {
  const node = nodeState;
  it.each([
    ['more free capacity first', [node('a', { reportedInFlight: 8 }), node('bb')], ['bb', 'a']],
    ['fewer blocks for the provider first', [node('a', { providerHealth: { p: { throttled: 0, blocked: 2 } } }), node('bb', { reportedInFlight: 9 })], ['bb', 'a']],
    ['full, draining and suspect nodes are skipped', [node('a', { assigned: 10 }), node('bb', { draining: true }), node('ccc', { suspectUntilMs: 5_000 }), node('dddd')], ['dddd']],
  ])('%s', (_what, nodes, order) => {
    expect(rankCandidates(nodes, 'p', 1_000).map((c) => c.node.id)).toEqual(order);
  });
  it("prefers the IP of the MX host's last session (its connection may be kept there) over free capacity, not over health", () => {
    const nodes = [node('a', { sourceIps: ['1.1.1.1', '1.1.1.2'], reportedInFlight: 8 }), node('b', { sourceIps: ['2.2.2.2'] })];
    expect(rankCandidates(nodes, 'p', 0, null, '1.1.1.2').map((c) => c.ipKey)).toEqual(['1.1.1.2', '1.1.1.1', '2.2.2.2']);
    expect(rankCandidates(nodes, 'p', 0).map((c) => c.ipKey)).toEqual(['2.2.2.2', '1.1.1.1', '1.1.1.2']);
    const throttled = [node('a', { sourceIps: ['1.1.1.1'], providerHealth: { p: { throttled: 1, blocked: 0 } } }), node('b', { sourceIps: ['2.2.2.2'] })];
    expect(rankCandidates(throttled, 'p', 0, null, '1.1.1.1').map((c) => c.ipKey)).toEqual(['2.2.2.2', '1.1.1.1']);
    // A greylist retry's IP still comes first; a full node is still skipped.
    expect(rankCandidates(nodes, 'p', 0, '2.2.2.2', '1.1.1.2')[0]!.ipKey).toBe('2.2.2.2');
    expect(rankCandidates([node('a', { sourceIps: ['1.1.1.1'], assigned: 10 }), node('b', { sourceIps: ['2.2.2.2'] })], 'p', 0, null, '1.1.1.1').map((c) => c.ipKey)).toEqual(['2.2.2.2']);
  });
  it('puts the preferred source IP first and keys IP-less nodes by node', () => {
    const nodes = [node('a', { sourceIps: ['1.1.1.1', '1.1.1.2'] }), node('b', { sourceIps: [] })];
    expect(rankCandidates(nodes, 'p', 0, '1.1.1.2').map((c) => c.ipKey)).toEqual(['1.1.1.2', '1.1.1.1', 'node:b']);
  });
});

describe('decideAddress', () => {
  const reply = (code: number, enhanced: string | null, text: string, more: Partial<ProbeSessionReply> = {}): ProbeSessionReply => ({
    session_id: 's',
    node_id: 'n',
    outcome: 'completed',
    mx_used: 'mx.d.test',
    source_ip: '127.0.0.1',
    tls: false,
    catch_all: { address: 'random@d.test', reply: { code: 550, enhanced: '5.1.1', text: 'no' } },
    results: [{ address: 'a@d.test', reply: { code, enhanced, text }, ms: 1, state: 'replied', stage: 'rcpt' }],
    duration_ms: 5,
    ...more,
  });
  const base = { address: 'a@d.test', attempt: 1, elapsedMs: 0, ladders: { greylist: [5, 12, 20, 45, 75], temporary: [5, 20] }, throttleStreak: 0, otherIpAvailable: true };
  // A host whose recipient table is unreachable answers every RCPT, the catch-all probe included, alike.
  const lookupFailure = reply(451, '4.3.0', '<a@d.test>: Temporary lookup failure', { catch_all: { address: 'random@d.test', reply: { code: 451, enhanced: '4.3.0', text: '<random@d.test>: Temporary lookup failure' } } });
  it.each([
    ['250 accepted', reply(250, '2.1.5', 'OK'), {}, 'final'],
    ['550 5.1.1', reply(550, '5.1.1', 'User unknown'), {}, 'final'],
    ['450 greylisted', reply(450, '4.7.1', 'Greylisted'), {}, 'retry'],
    ['450 greylisted after the ladder', reply(450, '4.7.1', 'Greylisted'), { attempt: 6 }, 'final'],
    ['450 greylisted past the short ladder', reply(450, '4.7.1', 'Greylisted'), { attempt: 3 }, 'retry'],
    ['451 4.3.0 lookup failure', lookupFailure, {}, 'retry'],
    ['451 4.3.0 lookup failure again', lookupFailure, { attempt: 2 }, 'retry'],
    ['451 4.3.0 lookup failure after the short ladder', lookupFailure, { attempt: 3 }, 'final'],
    ['550 5.7.1 too many invalid recipients, other IP', reply(550, '5.7.1', 'Too many invalid recipients'), {}, 'move_ip'],
    ['550 5.7.1 too many invalid recipients, no other IP', reply(550, '5.7.1', 'Too many invalid recipients'), { otherIpAvailable: false }, 'final'],
    ['421 throttled', reply(421, '4.7.0', 'Try again later'), {}, 'pause'],
    ['554 blocked, other IP', reply(554, '5.7.1', 'blocked using zen.spamhaus.org'), {}, 'move_ip'],
    ['554 blocked, no other IP', reply(554, '5.7.1', 'blocked using zen.spamhaus.org'), { otherIpAvailable: false }, 'final'],
    ['452 4.5.3 too many', reply(452, '4.5.3', 'Too many recipients'), {}, 'fewer_rcpts'],
    ['busy node', reply(250, null, '', { outcome: 'busy', results: [] }), {}, 'redispatch'],
    ['connect failed, no other IP may reach the host', reply(250, null, '', { outcome: 'connect_failed', results: [{ address: 'a@d.test', reply: null, ms: 0, state: 'not_attempted' }] }), {}, 'final'],
    ['connect failed, another IP may reach the host', reply(250, null, '', { outcome: 'connect_failed', results: [{ address: 'a@d.test', reply: null, ms: 0, state: 'not_attempted' }] }), { reachableElsewhere: true }, 'elsewhere'],
    ['node cut the session while stopping', reply(250, null, '', { outcome: 'timeout', node_fault: 'shutdown', results: [{ address: 'a@d.test', reply: null, ms: 0, state: 'not_attempted' }] }), {}, 'elsewhere'],
    ['node cannot get out', reply(250, null, '', { outcome: 'connect_failed', node_fault: 'egress', results: [{ address: 'a@d.test', reply: null, ms: 0, state: 'not_attempted' }] }), {}, 'elsewhere'],
    ['node cut the session after the address was answered', reply(550, '5.1.1', 'User unknown', { outcome: 'timeout', node_fault: 'shutdown' }), {}, 'final'],
  ] as const)('%s → %s', (_what, r, more, kind) => {
    expect(decideAddress({ ...base, ...more, reply: r }).kind).toBe(kind);
  });
  it('a temporary failure is final once the short ladder is used up', () => {
    const d = decideAddress({ ...base, attempt: 3, elapsedMs: 20 * 60_000, reply: lookupFailure });
    expect(d).toMatchObject({ kind: 'final', probe: { rcpt: { class: 'temporary_other' }, catchAll: { class: 'temporary_other' }, attempts: 3 } });
    expect(decideAddress({ ...base, attempt: 2, elapsedMs: 5 * 60_000, reply: lookupFailure })).toMatchObject({ kind: 'retry', delayMs: 15 * 60_000 });
  });
  it('an MX refused as a private address ends unknown with its reason, never undeliverable, and marks no MX down', () => {
    const refused = reply(250, null, '', { outcome: 'mx_refused', mx_used: null, catch_all: null, results: [{ address: 'a@d.test', reply: null, ms: 0, state: 'not_attempted' }] });
    const d = decideAddress({ ...base, reply: refused });
    expect(d).toMatchObject({ kind: 'final', probe: { rcpt: null, session: 'mx_refused' } });
    const syntax = checkSyntax('a@d.test');
    if (!syntax.ok || d.kind !== 'final') throw new Error('unreachable');
    const r = verdict({ email: 'a@d.test', syntax, dns: { kind: 'ok', mx: ['mx.d.test'], provider: providerForMx('mx.d.test') }, probe: d.probe, now: new Date() });
    expect(r).toMatchObject({ status: 'unknown', sub_status: 'no_signal' });
    expect(r.reason).toMatch(/private or special-purpose addresses/);
    expect(mxDownMarks(refused, ['mx.d.test'], 120_000, 900_000)).toEqual([]);
  });
  it('a harvest-defence refusal is a block, never a missing mailbox', () => {
    const d = decideAddress({ ...base, otherIpAvailable: false, reply: reply(554, '5.7.1', 'Too many unknown recipients, connection refused') });
    expect(d).toMatchObject({ kind: 'final', probe: { rcpt: { class: 'policy_blocked' } } });
  });
  it('a policy block carries the block time of the retry policy it was decided with', () => {
    const block = reply(554, '5.7.1', 'blocked using zen.spamhaus.org');
    expect(decideAddress({ ...base, reply: block })).toMatchObject({ kind: 'move_ip', blockMs: RETRY_POLICY.ipBlockMs });
    const ladders = retryPolicy(schedulerConfigSchema.parse({ IP_BLOCK_MS: '5000' }));
    expect(decideAddress({ ...base, ladders, reply: block })).toMatchObject({ kind: 'move_ip', blockMs: 5_000 });
  });
  it('greylist retry waits the ladder step minus time already spent', () => {
    const d = decideAddress({ ...base, elapsedMs: 60_000, reply: reply(450, '4.7.1', 'Greylisted') });
    expect(d).toMatchObject({ kind: 'retry', delayMs: 240_000 });
  });
  it('catch-all and MX-down facts', () => {
    expect(provesCatchAll(reply(250, null, 'OK', { catch_all: { address: 'r@d.test', reply: { code: 250, enhanced: null, text: 'OK' } } }))).toBe(true);
    const mx = ['mx1.d.test', 'mx2.d.test'];
    expect(mxDownMarks(reply(250, null, '', { outcome: 'connect_failed', mx_used: null }), mx, 120_000, 900_000)).toEqual(mx.map((host) => ({ host, ms: 120_000 })));
    expect(mxDownMarks(reply(250, null, '', { outcome: 'timeout', mx_used: null }), mx, 120_000, 900_000)).toEqual(mx.map((host) => ({ host, ms: 900_000 })));
    const oneRefused = reply(250, null, '', { outcome: 'connect_failed', mx_used: null, connect_errors: [{ host: 'mx1.d.test', ip: '192.0.2.1', error: 'connection refused' }] });
    expect(mxDownMarks(oneRefused, mx, 120_000, 900_000)).toEqual([{ host: 'mx1.d.test', ms: 120_000 }]);
    expect(mxDownMarks(reply(250, null, 'OK'), mx, 120_000, 900_000)).toEqual([]);
    // The node's own trouble marks no host.
    expect(mxDownMarks(reply(250, null, '', { outcome: 'timeout', mx_used: null, node_fault: 'shutdown' }), mx, 120_000, 900_000)).toEqual([]);
    expect(mxDownMarks(reply(250, null, '', { outcome: 'connect_failed', mx_used: null, node_fault: 'egress' }), mx, 120_000, 900_000)).toEqual([]);
  });
  it('a host is down for an item only when every usable IP found every MX host of the domain down', () => {
    const mx = ['mx1.d.test', 'mx2.d.test'];
    const view = new Map([
      ['mx1.d.test', new Map([['10.0.0.1', 60_000], ['10.0.0.2', 30_000]])],
      ['mx2.d.test', new Map([['10.0.0.1', 90_000]])],
    ]);
    expect(downForIp(view, mx, '10.0.0.1')).toBe(60_000);
    // mx2 is not down from .2, so .2 may still reach the domain.
    expect(downForIp(view, mx, '10.0.0.2')).toBe(0);
    expect(downForEveryIp(view, mx, ['10.0.0.1', '10.0.0.2'])).toBe(0);
    expect(downForEveryIp(view, mx, ['10.0.0.1'])).toBe(60_000);
    expect(downForEveryIp(view, ['mx1.d.test'], ['10.0.0.1', '10.0.0.2'])).toBe(30_000);
    // No usable IP says nothing about the host.
    expect(downForEveryIp(view, mx, [])).toBe(0);
  });
});

describe('load level', () => {
  const t = { busySeconds: 10, saturatedSeconds: 60, busyCapacity: 0.7, saturatedCapacity: 0.95, idleSecondsPerSingle: 3 };
  it.each([
    ['idle', { queueSingle: 0, queueList: 0, throughputPerS: 0, capacityTotal: 400, capacityInUse: 0 }, 'normal'],
    ['list backlog only', { queueSingle: 0, queueList: 50_000, throughputPerS: 100, capacityTotal: 400, capacityInUse: 100 }, 'normal'],
    ['singles queue for 10 s', { queueSingle: 700, queueList: 0, throughputPerS: 100, capacityTotal: 400, capacityInUse: 100 }, 'busy'],
    ['70% of probe capacity', { queueSingle: 0, queueList: 0, throughputPerS: 100, capacityTotal: 100, capacityInUse: 70 }, 'busy'],
    ['singles queue for a minute', { queueSingle: 6_000, queueList: 0, throughputPerS: 100, capacityTotal: 400, capacityInUse: 100 }, 'saturated'],
    ['no probe node with work waiting', { queueSingle: 1, queueList: 0, throughputPerS: 0, capacityTotal: 0, capacityInUse: 0 }, 'saturated'],
  ])('%s → %s', (_what, input, level) => {
    const f = computeLoad({ parkedSingle: 0, parkedList: 0, ...input }, t, new Date(0));
    expect(f.load).toBe(level);
  });
  it('expected seconds follow throughput', () => {
    const f = computeLoad({ queueSingle: 100, queueList: 9_000, parkedSingle: 0, parkedList: 0, throughputPerS: 50, capacityTotal: 400, capacityInUse: 10 }, t, new Date(0));
    expect(f.seconds_per_single).toBe(5);
    expect(f.seconds_per_1000).toBe(202);
  });
});

describe('config', () => {
  it('has the reference defaults and a scalable ladder', () => {
    const c = schedulerConfigSchema.parse({});
    expect(c.GREYLIST_LADDER_MINUTES).toEqual([5, 12, 20, 45, 75]);
    expect(c.PROVIDER_PAUSE_INITIAL_MS).toBe(600_000);
    expect(c.IP_BLOCK_MS).toBe(3_600_000);
    expect(c.BATCH_WINDOW_MS).toBe(250);
    // The scheduler's defaults are @dv/verdict's retry policy (data in one place).
    expect(c.GREYLIST_LADDER_MINUTES).toEqual(GREYLIST_LADDER_MINUTES);
    expect(c.TEMP_FAILURE_LADDER_MINUTES).toEqual(TEMP_FAILURE_LADDER_MINUTES);
    expect(retryPolicy(c)).toEqual(RETRY_POLICY);
    expect(retryPolicy({ ...c, GREYLIST_LADDER_SCALE: 0.01 })).toMatchObject({ greylist: [0.05, 0.12, 0.2, 0.45, 0.75], temporary: [0.05, 0.2] });
    // Settings override the data, and the decisions carry them.
    const mine = retryPolicy(schedulerConfigSchema.parse({ IP_BLOCK_MS: '5000', PROVIDER_PAUSE_INITIAL_MS: '1000', PROVIDER_PAUSE_MAX_MS: '3000' }));
    expect(mine).toMatchObject({ ipBlockMs: 5_000, throttlePause: { initialMs: 1_000, factor: 2, maxMs: 3_000 } });
    expect(schedulerConfigSchema.parse({ TEMP_FAILURE_LADDER_MINUTES: '2, 10' }).TEMP_FAILURE_LADDER_MINUTES).toEqual([2, 10]);
  });
  it.each([
    [{ GREYLIST_LADDER_MINUTES: '5,3' }, 'GREYLIST_LADDER_MINUTES'],
    [{ TEMP_FAILURE_LADDER_MINUTES: '0' }, 'TEMP_FAILURE_LADDER_MINUTES'],
    [{ LOAD_BUSY_SECONDS: '90' }, 'LOAD_SATURATED_SECONDS'],
    [{ SESSION_LEASE_MS: '1000' }, 'SESSION_LEASE_MS'],
  ])('rejects %j', (env, path) => {
    const r = schedulerConfigSchema.safeParse(env);
    expect(r.success).toBe(false);
    expect(r.error!.issues.some((i) => i.path[0] === path)).toBe(true);
  });
});
