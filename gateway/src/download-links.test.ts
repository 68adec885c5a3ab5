import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadSignature, PUBLISHED_DOWNLOAD_SECRETS } from '@dv/notify';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';
import { call, startGatewayHarness, TEST_DOWNLOAD_SECRET, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Forging a results link: with a key from the repository, with another job's signature, or with
// the key of another stack. The in-process gateway runs with the harness's key; the child process
// runs as a hand-started gateway does, with no key configured at all.

let h: GatewayHarness;
let a: TestAccount;
let bare: RunningProcess | undefined;
let jobA: string;
let jobB: string;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'links', scheduler: true });
  a = await h.account({ credits: 10 });
  const make = async (email: string) => {
    const r = await call(h.url, '/v1/jobs', { key: a.live, body: { emails: [email] } });
    expect(r.status).toBe(202);
    const done = await call(h.url, `/v1/jobs/${r.body.job_id}?wait=20`, { key: a.live });
    expect(done.body.status).toBe('completed');
    return r.body.job_id as string;
  };
  jobA = await make('ann@example.com');
  jobB = await make('bob@example.com');
  const { DOWNLOAD_SIGNING_SECRET: _configured, ...withoutKey } = h.env;
  bare = await startServiceProcess('gateway', { env: { ...withoutKey, NODE_ENV: 'development' }, logDir: join(REPO_ROOT, '.local', 'gw-test-logs') });
}, 120_000);
afterAll(async () => {
  await bare?.stop();
  await h?.close();
});

const exp = () => Math.floor(Date.now() / 1000) + 3_600;
const get = (base: string, jobId: string, e: number, sig: string) => fetch(`${base}/v1/downloads/${jobId}.csv?exp=${e}&sig=${sig}`);

describe('download links cannot be forged', () => {
  it('a link signed with a key that is in the repository is refused', async () => {
    const e = exp();
    expect((await get(h.url, jobA, e, downloadSignature(jobA, e, TEST_DOWNLOAD_SECRET))).status).toBe(200);
    const formerDevKey = 'development-only-download-signing-secret-not-for-production';
    expect(PUBLISHED_DOWNLOAD_SECRETS).toContain(formerDevKey);
    // The key every unconfigured gateway used to fall back to: refused by one with no key configured.
    const forged = await get(bare!.url, jobA, e, downloadSignature(jobA, e, formerDevKey));
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code: string }).code).toBe('forbidden');
  });

  it("one job's signature does not open another job", async () => {
    const status = await call(h.url, `/v1/jobs/${jobA}`, { key: a.live });
    const link = new URL(status.body.download_url as string);
    expect(link.pathname).toBe(`/v1/downloads/${jobA}.csv`);
    expect((await fetch(`${h.url}${link.pathname}${link.search}`)).status).toBe(200);
    const swapped = await fetch(`${h.url}/v1/downloads/${jobB}.csv${link.search}`);
    expect(swapped.status).toBe(403);
    // Nor does moving the expiry: the signature covers it.
    const sig = link.searchParams.get('sig')!;
    expect((await get(h.url, jobA, Number(link.searchParams.get('exp')) + 86_400, sig)).status).toBe(403);
  });

  it('a gateway started without a key signs with a random one of its own, which no other stack shares', async () => {
    const own = await call(bare!.url, `/v1/jobs/${jobA}`, { key: a.live });
    const link = new URL(own.body.download_url as string);
    // PUBLIC_BASE_URL is the default, so take only the path and query.
    expect((await fetch(`${bare!.url}${link.pathname}${link.search}`)).status).toBe(200);
    // Its links open nothing on the configured gateway, and the configured gateway's open nothing there.
    expect((await fetch(`${h.url}${link.pathname}${link.search}`)).status).toBe(403);
    const e = exp();
    expect((await get(bare!.url, jobA, e, downloadSignature(jobA, e, TEST_DOWNLOAD_SECRET))).status).toBe(403);
  });
});
