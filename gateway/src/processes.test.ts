import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Gateways as real processes: any replica answers a long-poll for a job another replica created
// (they share nothing but NATS, Redis and MongoDB; the real scheduler process does the work), and
// a 50 MB upload is parsed as a stream.

let h: GatewayHarness;
let a: TestAccount;
let gwA: RunningProcess;
let gwB: RunningProcess;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'procs' });
  a = await h.account({ plan: 'enterprise' });
  const logDir = join(REPO_ROOT, '.local', 'gw-test-logs');
  [gwA, gwB] = await Promise.all([startServiceProcess('gateway', { env: h.env, logDir }), startServiceProcess('gateway', { env: h.env, logDir })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([gwA?.stop(), gwB?.stop()]);
  await h?.close();
});

const vm = (pid: number, field: 'VmHWM' | 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
/** Linux (4.0+): sets the process's peak RSS (VmHWM) back to its current RSS, so one upload's peak can be read on its own. */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

describe('two gateway replicas', () => {
  it('a long-poll on replica B returns when the job created on replica A is done', async () => {
    const created = await call(gwA.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['r1@example.com', 'r2.catchall@example.com'] } });
    expect(created.status).toBe(202);
    const poll = call(gwB.url, `/v1/jobs/${created.body.job_id}?wait=50`, { key: a.sandbox });
    // Nothing answers until the scheduler starts: B is really waiting.
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    const scheduler = await startServiceProcess('scheduler', {
      env: { NATS_URL: h.env.NATS_URL!, NATS_USERS_DIR: h.env.NATS_USERS_DIR!, REDIS_URL: h.env.REDIS_URL!, MONGODB_URL: h.env.MONGODB_URL!, MONGODB_DB: h.env.MONGODB_DB!, REDIS_PREFIX: `${h.env.REDIS_KEY_PREFIX}sch:`, LOG_LEVEL: 'warn' },
      logDir: join(REPO_ROOT, '.local', 'gw-test-logs'),
    });
    try {
      const done = await poll;
      expect(done.body).toMatchObject({ status: 'completed', done: 2, counts: { deliverable: 1, risky: 1 } });
      // Woken by verify.done, well before the 50 s wait ends.
      expect(Date.now() - t0).toBeLessThan(30_000);
    } finally {
      await scheduler.stop();
    }
  }, 90_000);
});

describe('a 50 MB upload', () => {
  // The same 25,000 unique addresses (with four meta columns) arrive once as a ~2 MB file and once
  // padded with duplicate rows to 50 MB, on the same gateway process. The memory a job needs grows
  // with its accepted items (bounded by the plan: 25,000); streaming means the other 48 MB of the
  // file add next to nothing. Each upload's peak is measured from its own start (the peak RSS is
  // reset just before it), in one process: comparing two processes' high-water marks let one
  // process's earlier, unrelated peak hide (or fake) a difference.
  const csv = (padTo: number) => {
    const rows: string[] = ['email,first_name,last_name,company,notes'];
    for (let i = 0; i < 25_000; i++) rows.push(`user${i}@example.com,First${i},Last${i},Company ${i % 500},"note, quoted ${i}"`);
    const unique = Buffer.from(`${rows.join('\n')}\n`);
    if (padTo <= unique.length) return unique;
    const filler = Buffer.alloc(padTo - unique.length, 'user1@example.com,Again,Duplicate,Company 1,"a duplicate row that only adds bytes to the file......"\n');
    const body = Buffer.concat([unique, filler]);
    return body.subarray(0, body.lastIndexOf('\n') + 1);
  };
  const send = async (gw: RunningProcess, body: Buffer) => {
    const pid = gw.child.pid!;
    resetPeak(pid);
    const before = vm(pid, 'VmHWM');
    const form = new FormData();
    form.append('email_column', 'email');
    form.append('file', new Blob([new Uint8Array(body)]), 'list.csv');
    const t0 = Date.now();
    const res = await fetch(`${gw.url}/v1/jobs`, { method: 'POST', body: form, headers: { authorization: `Bearer ${a.sandbox}` } });
    const out = (await res.json()) as { accepted: number; duplicates_removed: number };
    expect(res.status).toBe(202);
    expect(out.accepted).toBe(25_000);
    return { growth: vm(pid, 'VmHWM') - before, ms: Date.now() - t0, duplicates: out.duplicates_removed };
  };

  it('is parsed as a stream: peak memory does not grow with the file', async () => {
    const small = csv(0);
    const big = csv(50 * 1024 * 1024 - 4096);
    expect(big.length).toBeGreaterThan(49 * 1024 * 1024);
    // Two small uploads first: a fresh process's heap grows over its first jobs whatever their
    // file size (measured: +120 MB, then +70, +40, +20 MB), so the measured pair runs on a process
    // already sized for a 25k job and differs only in the file's size. (Four jobs in all: the
    // plan's active-job limit is five.)
    await send(gwA, small);
    await send(gwA, small);
    const s = await send(gwA, small);
    const b = await send(gwA, big);
    expect(b.duplicates).toBeGreaterThan(400_000);
    const mb = (x: number) => (x / 2 ** 20).toFixed(0);
    console.log(`25k-row job: ${mb(small.length)} MB file → +${mb(s.growth)} MB peak RSS (${s.ms} ms); ${mb(big.length)} MB file → +${mb(b.growth)} MB (${b.ms} ms)`);
    // The extra 48 MB of file cost well under their size.
    expect(b.growth - s.growth).toBeLessThan(big.length * 0.5);
  }, 300_000);
});
