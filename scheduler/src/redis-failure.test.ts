// Decisions survive a Redis error: a session's throttle taught a pause, and Redis
// stopped (its process, for real) before the pause could be stored. The item must still wait out
// the pause durably instead of being released and re-probed at once, and the pause this replica
// held is written to Redis once it is back.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';
import { startHarness, until, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf } from './testing/jobs.ts';
import { startSchedulerWorld } from './testing/world.ts';

let t: Harness;
let world: WorldHandle;
// This file's own Redis: stopping the run's shared one would break every other test.
let own: Stack;
const dataDir = join(REPO_ROOT, '.local', `redisfail-${process.pid}-${randomBytes(3).toString('hex')}`);

beforeAll(async () => {
  t = await startHarness('redisfail');
  world = await startSchedulerWorld();
  own = await startStack({ dataDir, servers: ['redis'] });
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
  await own?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Redis stopped right after a session', () => {
  it('loses no decision: the throttled item waits out its pause durably, and the pause reaches Redis when it is back', async () => {
    const redisUrl = own.env.REDIS_URL!;
    await t.startProbe('rf1', ['127.0.0.7'], world.env);
    await t.startScheduler({ ...world.env, REDIS_URL: redisUrl, PROVIDER_PAUSE_INITIAL_MS: '60000', PROVIDER_PAUSE_MAX_MS: '60000' });
    const { job } = await createTestJob(t.db, t.nc, ['user@throttled.test']);
    const host = world.hosts.get('mx.throttled.test')!;
    // The host answers each line after 800 ms and refuses MAIL with 421: stop Redis mid-session.
    await until(() => host.sessions.find((s) => s.endedAtMs === undefined), 30_000, 'a session in flight');
    const server = own.servers.redis!;
    await server.stop();
    try {
      const item = await until(async () => {
        const [i] = await itemsOf(t.db, job._id);
        return i?.state === 'waiting_retry' ? i : null;
      }, 20_000, 'the throttled item parked');
      // Parked for the pause (60 s), after one attempt: not released for an immediate retry.
      expect(item.next_attempt_at!.getTime() - Date.now()).toBeGreaterThan(30_000);
      expect(item.attempts).toBe(1);
    } finally {
      await server.start();
    }
    const client = new Redis(redisUrl);
    try {
      const pttl = await until(async () => {
        const [key] = await client.keys(`${t.env.REDIS_PREFIX}pause:*:127.0.0.7`);
        return key ? client.pttl(key) : null;
      }, 15_000, 'the held pause written to Redis again');
      expect(pttl).toBeGreaterThan(30_000);
    } finally {
      client.disconnect();
    }
    // Nobody probed the throttling host again meanwhile, from any IP.
    expect(host.sessionsTotal).toBe(1);
    const [after] = await itemsOf(t.db, job._id);
    expect(after!.state).toBe('waiting_retry');
  }, 120_000);
});
