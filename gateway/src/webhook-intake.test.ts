import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { vetWebhookUrl, webhookUrlField } from './http/webhook-url.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// webhook_url is vetted at intake with @dv/notify's delivery rules (checkUrl): a URL every delivery
// try would refuse is a 422 validation_error before any job exists, on POST /v1/verify and on
// POST /v1/jobs (JSON and multipart). Names are left to DNS at delivery.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'webhook', scheduler: true });
  a = await h.account({ credits: 100 });
});
afterAll(async () => h?.close());

const jobCount = () => h.db.collection<JobDoc>(COLLECTIONS.jobs.name).countDocuments({ account_id: a.account._id });

const REFUSED: Array<[string, RegExp]> = [
  ['https://127.0.0.1:8443/hook', /loopback/],
  ['https://[::1]:8443/hook', /loopback/],
  ['https://10.1.2.3/hook', /private/],
  ['https://192.168.1.1/hook', /private/],
  ['https://169.254.169.254/latest/meta-data/', /cloud_metadata/],
  ['https://[::ffff:10.0.0.1]/hook', /private/],
  ['https://0x7f.1/hook', /loopback/],
  ['https://[fd00::1]/hook', /unique_local/],
  ['http://hooks.example.com/hook', /https/],
  ['http://127.0.0.1:8080/hook', /https/],
  ['https://user:pw@hooks.example.com/hook', /credentials/],
  ['https://hooks.example.com:25/hook', /port 25/],
  ['ftp://hooks.example.com/hook', /https/],
  ['not a url', /absolute URL/],
];

function expectRefusal(r: { status: number; headers: Headers; body: { code?: string; detail?: Array<{ loc: unknown[]; msg: string; type: string }> } }, pattern: RegExp): void {
  expect(r.status).toBe(422);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe('validation_error');
  const issue = r.body.detail!.find((d) => d.loc.join('.') === 'body.webhook_url');
  expect(issue, JSON.stringify(r.body)).toBeDefined();
  expect(issue!.msg).toMatch(/^webhook_url refused: /);
  expect(issue!.msg).toMatch(pattern);
}

describe('POST /v1/verify and POST /v1/jobs refuse a bad webhook_url at once', () => {
  it.each(REFUSED)('%s', async (url, pattern) => {
    const before = await jobCount();
    expectRefusal(await call(h.url, '/v1/verify', { key: a.live, body: { email: 'ada@example.com', wait: 0, webhook_url: url } }), pattern);
    expectRefusal(await call(h.url, '/v1/jobs', { key: a.live, body: { emails: ['ada@example.com'], webhook_url: url } }), pattern);
    const form = new FormData();
    form.append('webhook_url', url);
    form.append('file', new Blob(['email\nada@example.com\n'], { type: 'text/csv' }), 'list.csv');
    const res = await fetch(`${h.url}/v1/jobs`, { method: 'POST', headers: { authorization: `Bearer ${a.live}` }, body: form });
    expectRefusal({ status: res.status, headers: res.headers, body: (await res.json()) as { code?: string } }, pattern);
    expect(await jobCount()).toBe(before);
  });

  it('reports the webhook refusal together with the other validation issues', async () => {
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'x@example.com', wait: 99, webhook_url: 'https://10.0.0.1/h' } });
    expect(r.status).toBe(422);
    expect((r.body.detail as Array<{ loc: string[] }>).map((d) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.wait', 'body.webhook_url']));
  });

  it('accepts a public https URL (names are resolved at delivery, not here)', async () => {
    const v = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'ada@example.com', wait: 0, webhook_url: 'https://hooks.example.com:8443/in?x=1' } });
    expect([200, 202]).toContain(v.status);
    const j = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['ada@example.com'], webhook_url: 'https://93.184.216.34/in' } });
    expect(j.status, JSON.stringify(j.body)).toBe(202);
    const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: j.body.job_id });
    expect(job?.webhook?.url).toBe('https://93.184.216.34/in');
    // A name that may resolve to a private address is the delivery's business (DNS can change).
    expect((await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['bob@example.com'], webhook_url: 'https://localhost:8443/in' } })).status).toBe(202);
  });
});

describe('the loopback switch (WEBHOOK_ALLOW_HTTP_LOOPBACK), as docs/notify.md says', () => {
  const schemaOk = (url: string) => webhookUrlField.safeParse(url).success;
  /** What a route does: the schema, then the switch. */
  const accepted = (url: string, allow: boolean) => {
    if (!schemaOk(url)) return false;
    try {
      return vetWebhookUrl(url, allow) === url;
    } catch {
      return false;
    }
  };

  it('off (production): loopback refused over http and https', () => {
    for (const url of ['http://127.0.0.1:4000/h', 'https://127.0.0.1:4000/h', 'https://[::1]:4000/h', 'http://[::1]:4000/h', 'http://localhost:4000/h']) {
      expect(accepted(url, false), url).toBe(false);
    }
    expect(() => vetWebhookUrl('https://127.0.0.1:4000/h', false)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('on: loopback accepted over http and https, and nothing else opens up', () => {
    for (const url of ['http://127.0.0.1:4000/h', 'https://127.0.0.1:4000/h', 'http://[::1]:4000/h', 'https://[::1]:4000/h', 'http://localhost:4000/h']) {
      expect(accepted(url, true), url).toBe(true);
    }
    for (const url of ['http://10.0.0.1:4000/h', 'https://10.0.0.1:4000/h', 'http://hooks.example.com/h', 'http://127.0.0.1:22/h', 'https://user:pw@127.0.0.1:4000/h']) {
      expect(accepted(url, true), url).toBe(false);
    }
  });

  it('absent or null is no webhook', () => {
    expect(vetWebhookUrl(undefined, false)).toBeNull();
    expect(vetWebhookUrl(null, false)).toBeNull();
  });
});
