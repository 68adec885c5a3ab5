import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeEngine } from './testing/fake-engine.ts';
import { startLookup, type LookupHarness } from './testing/harness.ts';

// /openapi.json is generated from the route definitions; it must be a valid OpenAPI 3.1 document
// that describes every route the service mounts.

let h: LookupHarness;
beforeAll(async () => {
  h = await startLookup({ engine: createFakeEngine(), label: 'openapi' });
});
afterAll(async () => h?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await fetch(`${h.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>; components: { schemas: Record<string, unknown> } };
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');

    expect(Object.keys(doc.paths).sort()).toEqual(
      ['/', '/mcp', '/openapi.json', '/v1/blacklist/{target}', '/v1/dkim/{target}', '/v1/dmarc/{target}', '/v1/dns/{target}', '/v1/email-security/{target}', '/v1/keys/request', '/v1/keys/verify', '/v1/meta/limits', '/v1/spf/{target}', '/v1/validate', '/v1/whois/{target}'].sort(),
    );
    expect(Object.keys(doc.paths['/v1/validate'] ?? {}).sort()).toEqual(['get', 'post']);
    // Generated from the zod schemas that validate requests: detail only where it is accepted.
    const params = (p: string) => (doc.paths[p]?.get?.parameters ?? []).map((x) => `${x.in}:${x.name}`);
    expect(params('/v1/dns/{target}')).toEqual(['path:target', 'query:detail']);
    expect(params('/v1/spf/{target}')).toEqual(['path:target']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['LookupResult', 'Usage', 'Problem', 'Limits', 'ServiceIndex']));
  });
});
