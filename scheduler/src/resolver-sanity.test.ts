// A lying resolver never empties a list: against a real resolver on loopback that answers NXDOMAIN
// to every name (then one that answers every name with one address), a check of someone@gmail.com
// ends unknown/temp_failure with retry_after_seconds, never undeliverable/domain_absent, and the
// scheduler's /readyz and dependency_up name the resolver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobItemDoc } from '@dv/contracts';
import { startLyingDnsServer, type LyingDnsServer } from '@dv/world';
import type { RunningProcess } from '@dv/stack';
import { startHarness, until, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from './testing/jobs.ts';

let t: Harness;
let liar: LyingDnsServer;
let sched: RunningProcess;

beforeAll(async () => {
  t = await startHarness('sanity');
  liar = await startLyingDnsServer('nxdomain');
  sched = await t.startSchedulerProcess({ DNS_SERVERS: liar.server, DNS_CANARIES: 'gmail.com,outlook.com,yahoo.com', DNS_CANARY_UNRELIABLE_INTERVAL_MS: '300', READINESS_GRACE_MS: '2000' });
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await liar?.stop();
});

async function verify(email: string): Promise<JobItemDoc> {
  const { job } = await createTestJob(t.db, t.nc, [email]);
  await waitForJob(t.db, job._id, 20_000);
  return (await itemsOf(t.db, job._id))[0]!;
}

async function readyz(): Promise<{ status: number; body: { down?: string[]; degraded?: string[] } }> {
  const res = await fetch(`${sched.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { down?: string[] } };
}

describe('a resolver that denies every name', () => {
  it('gives unknown/temp_failure with retry_after_seconds, never domain_absent', async () => {
    const item = await verify('someone@gmail.com');
    expect([item.result?.status, item.result?.sub_status]).toEqual(['unknown', 'temp_failure']);
    expect(item.result?.reason).toMatch(/resolver/i);
    expect(item.result?.decision.retry_after_seconds).toBe(600);
  }, 30_000);

  // Every replica shares the resolver, so /readyz stays 200 (unready pods would not mend it and
  // would stop what still works) and names it under `degraded`.
  it('names the resolver in /readyz (still 200: degraded), and dependency_up says so', async () => {
    const r = await until(async () => {
      const now = await readyz();
      return now.body.degraded?.includes('resolver down') ? now : null;
    }, 10_000, '/readyz degraded by the resolver');
    expect(r.status).toBe(200);
    expect(r.body.down ?? []).not.toContain('resolver');
    const metrics = await (await fetch(`${sched.url}/metrics`)).text();
    expect(metrics).toMatch(/dependency_up\{[^}]*dependency="resolver"[^}]*\} 0/);
  }, 20_000);
});

describe('a resolver that answers every name with one address', () => {
  it('gives unknown/temp_failure too, and dials no mail server', async () => {
    liar.setMode('one_address');
    // Canaries are asked every 300 ms while the resolver is not believed (DNS_CANARY_UNRELIABLE_INTERVAL_MS).
    await new Promise((r) => setTimeout(r, 1_000));
    const item = await verify('other@outlook.com');
    expect([item.result?.status, item.result?.sub_status]).toEqual(['unknown', 'temp_failure']);
    expect(item.result?.decision.retry_after_seconds).toBe(600);
    expect((await readyz()).body.degraded).toContain('resolver down');
  }, 30_000);
});
