// Directory-harvest defences against the default world's mx.harvest.test (421 "too many errors"
// after the 5th error reply of a connection, RSET does not reset the count): a cut session reports
// what was answered and leaves the rest unanswered, and a kept connection is reused only while its
// errors leave room under the host's error budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import type { ProbeSessionRequest } from '@dv/contracts';
import { PROBE_DEFAULTS } from './defaults.ts';
import { ConnectionPool, errorRoom, hasErrorRoom, worthReusing } from './pool.ts';
import { createResolver } from './resolve.ts';
import { runSession } from './session.ts';
import { prober, request, testConfig } from './testing.ts';

let world: WorldHandle;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
});
afterAll(async () => {
  await world.stop();
});

const MX = ['mx.harvest.test'];
const host = () => world.hosts.get('mx.harvest.test')!;
const verbs = (lines: string[]) => lines.map((l) => l.split(/[ :]/)[0]!.toUpperCase());
const cuts = () => host().sessions.flatMap((s) => s.replies).filter((r) => r.startsWith('421')).length;

function pooled(extra: Record<string, string> = {}) {
  const config = testConfig(world.env, extra);
  const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
  const pool = new ConnectionPool({ idleMs: 5_000, maxIdle: 10, maxTransactions: 100, quitTimeoutMs: PROBE_DEFAULTS.quitTimeoutMs });
  const probe = (addresses: string[], more: Partial<ProbeSessionRequest> = {}) => runSession(request('harvest.test', MX, addresses, more), { config, nodeId: 'test-node', resolver, pool });
  return { pool, probe };
}

describe('a session cut by a harvest defence', () => {
  it('reports the answered addresses, marks the rest unanswered without a reply, and says after how many errors', async () => {
    world.reset();
    const probe = prober(testConfig(world.env));
    const addresses = ['user@harvest.test', 'a1@harvest.test', 'a2@harvest.test', 'a3@harvest.test', 'a4@harvest.test', 'a5@harvest.test', 'user@harvest.test', 'a6@harvest.test'];
    const run = await probe(request('harvest.test', MX, addresses));
    const { reply } = run;
    expect(reply.outcome).toBe('completed');
    // Catch-all probe (1) + a1..a4 (2..5): the 5th error ends it; a5's RCPT draws the 421.
    expect(reply.catch_all?.reply?.code).toBe(550);
    expect(reply.results.map((r) => [r.address, r.state, r.reply?.code ?? null])).toEqual([
      ['user@harvest.test', 'replied', 250],
      ['a1@harvest.test', 'replied', 550],
      ['a2@harvest.test', 'replied', 550],
      ['a3@harvest.test', 'replied', 550],
      ['a4@harvest.test', 'replied', 550],
      ['a5@harvest.test', 'unanswered', null],
      ['user@harvest.test', 'replied', 250],
      ['a6@harvest.test', 'unanswered', null],
    ]);
    expect(reply.cut).toMatchObject({ stage: 'rcpt', errors: 5, reply: { code: 421, enhanced: '4.7.0' } });
    expect(reply.cut!.reply.text).toContain('too many errors');
    expect(reply.detail).toContain('after 5 error replies; 2 addresses unanswered');
    const session = host().sessions.at(-1)!;
    expect(session.errors).toBe(5);
    expect(session.replies.at(-1)).toMatch(/^421 4\.7\.0 /);
  });

  it('on a kept connection the errors of earlier transactions count: the cut reports the connection\'s total', async () => {
    world.reset();
    // An assumed budget far above the host's: the probe reuses a connection that already drew 4 errors.
    const { pool, probe } = pooled({ PROBE_ASSUMED_ERROR_BUDGET: '100' });
    const first = await probe(['b1@harvest.test', 'b2@harvest.test', 'b3@harvest.test']);
    expect(first.reply.cut).toBeUndefined();
    const second = await probe(['user@harvest.test'], { catch_all_probe: false });
    expect(second.reply.detail).toContain('reused an open connection');
    expect(second.reply.results[0]).toMatchObject({ state: 'replied', reply: { code: 250 } });
    // The catch-all probe is the 5th error of the connection: the first real RCPT draws the 421.
    const third = await probe(['b4@harvest.test', 'user@harvest.test']);
    expect(third.reply.catch_all?.reply?.code).toBe(550);
    expect(third.reply.results.map((r) => [r.state, r.reply])).toEqual([
      ['unanswered', null],
      ['unanswered', null],
    ]);
    expect(third.reply.cut).toMatchObject({ stage: 'rcpt', errors: 5, reply: { code: 421 } });
    expect(pool.size).toBe(0);
    await pool.closeAll();
    expect(host().sessions.map((s) => s.errors)).toEqual([5]);
    expect(cuts()).toBe(1);
  });
});

describe('connection reuse under an error budget', () => {
  it('a kept connection whose errors leave too little room is closed, not reused: its errors never reach the next batch', async () => {
    world.reset();
    const { pool, probe } = pooled();
    const first = await probe(['x1@harvest.test', 'x2@harvest.test'], { error_budget: 5 });
    expect(first.reply.connections).toBe(1);
    // 3 errors kept leave room for 1 under 5: not for the catch-all probe and half of 2 addresses.
    const second = await probe(['y1@harvest.test', 'y2@harvest.test'], { error_budget: 5 });
    expect(second.reply.connections).toBe(1);
    expect(second.reply.detail ?? '').not.toContain('reused');
    expect(second.reply.results.map((r) => r.reply?.code)).toEqual([550, 550]);
    // 3 errors kept + 1 RCPT possible (no catch-all probe) = 4 < 5: reused.
    const third = await probe(['user@harvest.test'], { error_budget: 5, catch_all_probe: false });
    expect(third.reply).toMatchObject({ connections: 0 });
    expect(third.reply.detail).toContain('reused an open connection');
    await pool.closeAll();
    const sessions = host().sessions;
    expect(sessions).toHaveLength(2);
    expect(verbs(sessions[0]!.commands)).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
    expect(sessions.map((s) => s.errors)).toEqual([3, 3]);
    expect(cuts()).toBe(0);
  });

  it('a kept connection with some room carries RCPTs in groups sized to the room left; what no longer fits goes to a fresh connection', async () => {
    world.reset();
    const { pool, probe } = pooled();
    await probe(['user@harvest.test'], { error_budget: 5 });
    // 1 error kept: room for 3 under 5. All 3 addresses and the probe could draw 4: the old rule
    // refused the connection. In groups: probe (error 2), then user + a1 (room 2; error 3), then
    // a2 (room 1; error 4): every address answered on the kept connection, and no 421.
    const second = await probe(['user@harvest.test', 'a1@harvest.test', 'a2@harvest.test'], { error_budget: 5 });
    expect(second.reply).toMatchObject({ connections: 0, outcome: 'completed' });
    expect(second.reply.detail).toContain('reused an open connection');
    expect(second.reply.results.map((r) => r.reply?.code)).toEqual([250, 550, 550]);
    // 4 errors: no room for one more, not kept.
    expect(pool.size).toBe(0);
    await probe(['user@harvest.test'], { error_budget: 5 });
    // 1 error kept again; 4 addresses: probe + b1 + b2 fill the room, user and b3 go to a fresh connection.
    const fourth = await probe(['b1@harvest.test', 'b2@harvest.test', 'user@harvest.test', 'b3@harvest.test'], { error_budget: 5 });
    expect(fourth.reply).toMatchObject({ connections: 1, outcome: 'completed' });
    expect(fourth.reply.detail).toContain('2 addresses moved to a fresh connection');
    expect(fourth.reply.results.map((r) => [r.state, r.reply?.code])).toEqual([['replied', 550], ['replied', 550], ['replied', 250], ['replied', 550]]);
    expect(fourth.reply.cut).toBeUndefined();
    await pool.closeAll();
    const sessions = host().sessions;
    expect(sessions).toHaveLength(3);
    // Never an RCPT sent while the errors on the wire could reach 5.
    expect(sessions.map((s) => s.errors)).toEqual([4, 4, 1]);
    expect(verbs(sessions[1]!.commands)).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RSET', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
    expect(verbs(sessions[2]!.commands)).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
    expect(cuts()).toBe(0);
  });

  it('a connection left without room for one more RCPT is not kept at all', async () => {
    world.reset();
    const { pool, probe } = pooled();
    await probe(['z1@harvest.test', 'z2@harvest.test', 'z3@harvest.test'], { error_budget: 5 });
    expect(pool.size).toBe(0);
    expect(verbs(host().sessions[0]!.commands).slice(-2)).toEqual(['RSET', 'QUIT']);
  });

  it('hasErrorRoom: an error-free connection always qualifies, one with errors only under the budget', () => {
    expect(hasErrorRoom(0, 50, 1)).toBe(true);
    expect(hasErrorRoom(1, 3, 5)).toBe(true);
    expect(hasErrorRoom(2, 3, 5)).toBe(false);
    expect(hasErrorRoom(1, 0, 1)).toBe(false);
  });

  it.each([
    // errors kept, addresses, catch-all probe, budget, reused, room
    [0, 20, true, 5, true, Number.POSITIVE_INFINITY],
    [1, 3, true, 5, true, 3],
    [1, 4, true, 5, true, 3],
    [1, 5, true, 5, false, 3],
    [3, 2, true, 5, false, 1],
    [3, 1, false, 5, true, 1],
    [7, 20, true, 10, false, 2],
    [5, 4, true, 10, true, 4],
  ])('worthReusing(%i errors, %i addresses, probe %s, budget %i) = %s, room %s', (errors, rcpts, probe, budget, reused, room) => {
    expect(worthReusing(errors, rcpts, probe, budget)).toBe(reused);
    expect(errorRoom(errors, budget)).toBe(room);
  });
});
