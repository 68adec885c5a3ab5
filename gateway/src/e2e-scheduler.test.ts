import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// End to end with the real scheduler process on sandbox keys: what the gateway publishes is
// answered, stored and announced by the scheduler, and read back through every read path.

let h: GatewayHarness;
let a: TestAccount;
let scheduler: RunningProcess;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'e2e' });
  a = await h.account();
  scheduler = await startServiceProcess('scheduler', {
    env: { NATS_URL: h.env.NATS_URL!, NATS_USERS_DIR: h.env.NATS_USERS_DIR!, REDIS_URL: h.env.REDIS_URL!, MONGODB_URL: h.env.MONGODB_URL!, MONGODB_DB: h.env.MONGODB_DB!, REDIS_PREFIX: `${h.env.REDIS_KEY_PREFIX}sch:`, LOG_LEVEL: 'warn' },
    logDir: join(REPO_ROOT, '.local', 'gw-test-logs'),
  });
}, 120_000);
afterAll(async () => {
  await scheduler?.stop();
  await h?.close();
});

describe('gateway + real scheduler (sandbox)', () => {
  it('a single check comes back within wait', async () => {
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'e2e.catchall@example.com', ref: 'x', wait: 25 } });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ email: 'e2e.catchall@example.com', ref: 'x', status: 'risky', sub_status: 'catch_all' });
  });

  it('a list job completes; results, lookup and the event feed agree', async () => {
    const emails = ['ok@example.com', 'gone.invalid@example.com', 'box.full@example.com', 'who.unknown@example.com', 'tmp.disposable@example.com'];
    const created = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails, label: 'e2e' } });
    expect(created.status).toBe(202);
    let job = created.body;
    for (let i = 0; i < 5 && job.status === 'running'; i++) job = (await call(h.url, `/v1/jobs/${created.body.job_id}?wait=20`, { key: a.sandbox })).body;
    expect(job).toMatchObject({ status: 'completed', done: 5, total: 5, counts: { deliverable: 1, undeliverable: 1, risky: 2, unknown: 1 } });
    const results = await call(h.url, `/v1/jobs/${job.job_id}/results?fields=email,status`, { key: a.sandbox });
    expect(results.body.results.map((r: { email: string }) => r.email)).toEqual(emails);
    const look = await call(h.url, '/v1/lookup?email=box.full@example.com', { key: a.sandbox });
    expect(look.body.result.sub_status).toBe('mailbox_full');
    const events = await call(h.url, '/v1/events?after=0&limit=500', { key: a.sandbox });
    expect(events.body.events.filter((e: { job_id: string }) => e.job_id === job.job_id)).toHaveLength(1);
  });
});
