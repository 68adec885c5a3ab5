import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Property: whatever malformed body, query or header arrives on any route, the answer is never a
// 5xx, every error is problem+json with a code and a detail, and nothing stored changes.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'fuzz' });
  a = await h.account({ limits: { requestsPerMinute: 1_000_000 } });
});
afterAll(async () => h?.close());

const JOB = 'job_01m80dbqat1jtnsfaxsce0tkew';
const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_.,;:@=+&?%#/\\"\'{}[]~!'.split('')), maxLength: 40 });
const anyJson = fc.jsonValue({ maxDepth: 3 });
const weird = fc.oneof(anyJson, fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.string({ maxLength: 400 }), fc.array(fc.string(), { maxLength: 5 }));

// Every body carries at least one violation (an unknown field, or a bad required field), so no
// generated request may legitimately create anything.
const verifyBody = fc.oneof(
  fc.record({ email: weird, wait: weird, ref: weird, fields: weird }, { requiredKeys: [] }).map((b) => ({ ...b, x_unknown: 1 })),
  fc.record({ email: fc.oneof(fc.integer(), fc.constant(null), fc.string({ minLength: 321, maxLength: 400 }), fc.array(fc.string())), wait: fc.integer({ min: -5, max: 60 }) }),
  fc.record({ email: fc.constant('ok@example.com'), wait: fc.oneof(fc.integer({ min: 56, max: 10_000 }), fc.integer({ min: -1000, max: -1 }), fc.string()) }),
  fc.record({ email: fc.constant('ok@example.com'), webhook_url: fc.oneof(printable, fc.constant('http://x.example.com'), fc.string({ minLength: 2049, maxLength: 2100 }).map((s) => `https://a.example.com/${s}`)) }),
  fc.record({ email: fc.constant('ok@example.com'), fields: fc.string({ minLength: 1, maxLength: 20 }).map((s) => `status,zz${s}`) }),
);
const jobsBody = fc.oneof(
  fc.record({ emails: weird, items: weird, label: weird }, { requiredKeys: [] }).map((b) => ({ ...b, x_unknown: true })),
  fc.record({ emails: fc.array(fc.emailAddress(), { minLength: 1, maxLength: 3 }), items: fc.array(fc.record({ email: fc.emailAddress() }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ emails: fc.oneof(fc.constant([]), fc.array(fc.integer(), { minLength: 1 }), fc.string()) }),
  fc.record({ items: fc.array(fc.record({ email: fc.emailAddress(), meta: fc.oneof(fc.integer(), fc.dictionary(fc.string(), fc.integer(), { minKeys: 1 })) }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ emails: fc.constant(['a@example.com']), max_wall_seconds: fc.oneof(fc.integer({ max: 59 }), fc.string(), fc.double({ min: 60.1, max: 100, noInteger: true })) }),
);
const rawBody = fc.oneof(fc.constant('{'), fc.constant('{"email":'), fc.constant('[1,2'), printable, fc.constant('null'), fc.constant('"str"'), fc.constant('12'));

const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'status', 'wait', 'fields', 'format', 'decision', 'after', 'email', 'exp', 'sig', 'zz'), printable, { maxKeys: 4 });
const badQuery = fc.oneof(
  fc.record({ limit: fc.oneof(fc.constantFrom('0', '-1', '1001', '1e3', 'abc', ''), printable) }),
  fc.record({ cursor: printable.map((s) => `x${s}`) }),
  fc.record({ wait: fc.constantFrom('56', '-1', '1.5', 'x') }),
  fc.record({ format: fc.constantFrom('xml', 'CSV', '') }),
  fc.record({ after: fc.constantFrom('-1', 'abc', '1.5') }),
);

type Req = { method: string; path: string; query?: Record<string, string>; body?: unknown; raw?: string; contentType?: string; auth?: string | null; idem?: string };

const request: fc.Arbitrary<Req> = fc.oneof(
  verifyBody.map((body) => ({ method: 'POST', path: '/v1/verify', body })),
  jobsBody.map((body) => ({ method: 'POST', path: '/v1/jobs', body })),
  fc.record({ method: fc.constantFrom('POST'), path: fc.constantFrom('/v1/verify', '/v1/jobs'), raw: rawBody, contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'multipart/form-data') }),
  fc.record({ method: fc.constant('GET'), path: fc.constantFrom('/v1/jobs', `/v1/jobs/${JOB}`, `/v1/jobs/${JOB}/results`, '/v1/lookup', '/v1/events', '/v1/account', '/v1/status', `/v1/downloads/${JOB}.csv`, '/v1/health', '/v1/openapi.json'), query: fc.oneof(query, badQuery) }),
  fc.record({ method: fc.constant('GET'), path: fc.oneof(printable.map((s) => `/v1/jobs/${encodeURIComponent(s)}`), printable.map((s) => `/v1/${encodeURIComponent(s)}`), printable.map((s) => `/v1/downloads/${encodeURIComponent(s)}.csv`)) }),
  fc.record({ method: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST'), path: fc.constantFrom('/v1/health', '/v1/verify', '/v1/account', '/v1/status', '/v1/lookup', '/v1/events', '/v1/openapi.json') }),
  fc.record({ method: fc.constant('DELETE'), path: fc.oneof(fc.constant(`/v1/jobs/${JOB}`), printable.map((s) => `/v1/jobs/${encodeURIComponent(s)}`)) }),
  fc.record({ method: fc.constantFrom('GET', 'POST'), path: fc.constantFrom('/v1/account', '/v1/verify', '/v1/jobs'), body: fc.constant({ email: 'x@example.com' }), auth: fc.oneof(fc.constant(null), printable, printable.map((s) => `Bearer ${s}`), fc.constant('Bearer dv_live_aaaaaaaaaa_' + 'B'.repeat(32))) }),
  fc.record({ method: fc.constant('POST'), path: fc.constantFrom('/v1/verify', '/v1/jobs'), body: fc.oneof(verifyBody, jobsBody), idem: fc.oneof(fc.string({ minLength: 256, maxLength: 300 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'a')), fc.constant(''), fc.constant('has space'), fc.constant('tab\there')) }),
);

async function snapshot(): Promise<string> {
  const hash = createHash('sha256');
  for (const c of [COLLECTIONS.jobs.name, COLLECTIONS.jobItems.name, COLLECTIONS.creditLedger.name, COLLECTIONS.events.name, COLLECTIONS.latestResults.name]) {
    hash.update(`${c}:${await h.db.collection(c).countDocuments({})}\n`);
  }
  const accounts = await h.db.collection(COLLECTIONS.accounts.name).find({}, { projection: { credits: 1, status: 1, plan: 1 } }).sort({ _id: 1 }).toArray();
  hash.update(JSON.stringify(accounts));
  return hash.digest('hex');
}

describe('fuzz', () => {
  it('2,100 malformed requests across every route: no 5xx, problem+json everywhere, nothing stored changes', async () => {
    const before = await snapshot();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        n++;
        const qs = r.query ? `?${new URLSearchParams(r.query).toString()}` : '';
        const headers: Record<string, string> = {};
        if (r.auth === undefined) headers.authorization = `Bearer ${a.sandbox}`;
        else if (r.auth !== null) headers.authorization = r.auth;
        if (r.idem !== undefined) headers['idempotency-key'] = r.idem;
        let body: string | undefined;
        if (r.raw !== undefined) {
          body = r.raw;
          headers['content-type'] = r.contentType ?? 'application/json';
        } else if (r.body !== undefined && r.method !== 'GET') {
          body = JSON.stringify(r.body);
          headers['content-type'] = 'application/json';
        }
        const res = await fetch(`${h.url}${r.path}${qs}`, { method: r.method, headers, body });
        const text = await res.text();
        expect(res.status, `${r.method} ${r.path}${qs} ${body ?? ''} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.headers.get('content-type'), text.slice(0, 200)).toMatch(/^application\/problem\+json/);
          const p = JSON.parse(text) as { code?: unknown; detail?: unknown };
          expect(typeof p.code).toBe('string');
          expect(p.detail).toBeTruthy();
          if (res.status === 422 && p.code === 'validation_error') {
            expect(Array.isArray(p.detail)).toBe(true);
            for (const d of p.detail as { loc: unknown; msg: unknown; type: unknown }[]) {
              expect(Array.isArray(d.loc)).toBe(true);
              expect(typeof d.msg).toBe('string');
              expect(typeof d.type).toBe('string');
            }
          }
        }
      }),
      { numRuns: 2_100, seed: 20261122 },
    );
    expect(n).toBeGreaterThanOrEqual(2_000);
    expect(await snapshot()).toBe(before);
  }, 180_000);
});
