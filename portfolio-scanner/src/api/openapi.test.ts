import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTFOLIO_ERROR_STATUS } from './errors.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { portfolioRoutes } from './routes/index.ts';
import { startHarness, type Harness } from './testing/harness.ts';

// The OpenAPI 3.1 document is generated from the route definitions: served without a key, it must
// validate and describe every route, parameter, body and error of the API.

type Op = { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, unknown> }; security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

let h: Harness;
let doc: Doc;

beforeAll(async () => {
  h = await startHarness('popenapi');
  const r = await h.call('GET', '/api/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body as Doc;
});
afterAll(async () => h?.close());

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('names PUBLIC_BASE_URL as its server when the service has one', () => {
    const routes = portfolioRoutes();
    expect(buildOpenApiDocument(routes, 'http://127.0.0.1:18082/').servers).toEqual([{ url: 'http://127.0.0.1:18082' }]);
    expect(buildOpenApiDocument(routes).servers).toBeUndefined();
  });

  it('names operations in snake_case, as the verification and lookup documents do', () => {
    for (const r of portfolioRoutes()) expect(r.operationId).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('describes every route with its parameters, bodies and errors', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, m]) => Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(
      [
        'GET /api/v1/',
        'GET /api/v1/openapi.json',
        'GET /api/v1/domains/',
        'POST /api/v1/domains/',
        'GET /api/v1/domains/{id}/',
        'PATCH /api/v1/domains/{id}/',
        'DELETE /api/v1/domains/{id}/',
        'GET /api/v1/domains/{id}/scan-results/',
        'GET /api/v1/domains/{id}/changes/',
        'GET /api/v1/domains/{id}/whois/',
        'GET /api/v1/dashboard/summary/',
        'GET /api/v1/exports/',
        'POST /api/v1/exports/',
        'GET /api/v1/exports/{id}/',
        'GET /api/v1/exports/{task_id}/file/',
        'GET /api/v1/keys/',
        'POST /api/v1/keys/',
        'DELETE /api/v1/keys/{id}/',
      ].sort(),
    );
    const params = (p: string, m: string) => (doc.paths[p]![m]!.parameters ?? []).map((x) => `${x.in}:${x.name}`).sort();
    expect(params('/api/v1/domains/', 'get')).toEqual(['query:dmarc_status', 'query:email_gateway', 'query:folder_id', 'query:limit', 'query:offset', 'query:search']);
    expect(params('/api/v1/domains/{id}/changes/', 'get')).toEqual(['path:id', 'query:limit', 'query:offset']);
    expect(Object.keys(doc.paths['/api/v1/domains/']!.post!.requestBody!.content)).toEqual(['application/json']);
    const list = doc.paths['/api/v1/domains/']!.get!;
    expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500']);
    expect(list.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(list.responses['429']!.headers).toHaveProperty('X-API-Quota-Used');
    expect(doc.paths['/api/v1/openapi.json']!.get!.security).toEqual([]);
    expect(doc.paths['/api/v1/keys/']!.post!.responses).toHaveProperty('409');
    expect(Object.keys(doc.paths['/api/v1/exports/']!.post!.responses).sort()).toEqual(['202', '400', '401', '403', '409', '429', '500']);
    // The signed file link needs no key: no security, no 429; 401 when the key it was made for is revoked.
    const file = doc.paths['/api/v1/exports/{task_id}/file/']!.get!;
    expect(file.security).toEqual([]);
    expect(Object.keys(file.responses).sort()).toEqual(['200', '400', '401', '403', '404']);
    expect(params('/api/v1/exports/{task_id}/file/', 'get')).toEqual(['path:task_id', 'query:expires', 'query:key', 'query:signature']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['DomainListItem', 'DomainDetail', 'ScanResult', 'ChangeRecord', 'WhoisRecord', 'DashboardSummary', 'ApiKey', 'PageMeta', 'ErrorEnvelope', 'ExportJob', 'CreateExportRequest', 'ExportFilters']));
  });

  it('lists the email_gateway values: each vendor by value and id, self-hosted, null MX and none', () => {
    const param = (doc.paths['/api/v1/domains/']!.get!.parameters as { name: string; description?: string }[]).find((x) => x.name === 'email_gateway');
    const text = param?.description ?? '';
    for (const v of ['`Google` (`google`)', '`Microsoft 365` (`microsoft_365`)', '`Mimecast` (`mimecast`)', '`Self-hosted` (`self_hosted`)', '`Null MX` (`null_mx`)', '`none`', 'case-insensitive']) expect(text).toContain(v);
    expect(text).not.toContain('Google Workspace');
  });

  it('lists exactly the closed list of error codes', () => {
    const envelope = JSON.stringify(doc.components.schemas.ErrorEnvelope);
    for (const code of Object.keys(PORTFOLIO_ERROR_STATUS)) expect(envelope).toContain(`"${code}"`);
  });
});
