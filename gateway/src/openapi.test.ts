import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { gatewayRoutes } from './app.ts';
import { buildOpenApiDocument } from './openapi.ts';

// The OpenAPI 3.1 document is generated from the route definitions: it must validate as OpenAPI
// 3.1 and describe every route, parameter, body, header and error the gateway serves.

type Op = { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }> };

describe('GET /v1/openapi.json', () => {
  const doc = buildOpenApiDocument(gatewayRoutes(), 'https://api.example.com') as unknown as { openapi: string; info: { version: string }; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };

  it('is a valid OpenAPI 3.1 document, version 1.0.0', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('describes every route with its parameters, bodies, headers and errors', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, m]) => Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(
      [
        'GET /v1/health',
        'GET /v1/openapi.json',
        'POST /v1/verify',
        'GET /v1/status',
        'POST /v1/jobs',
        'GET /v1/jobs',
        'GET /v1/jobs/{job_id}',
        'DELETE /v1/jobs/{job_id}',
        'GET /v1/jobs/{job_id}/results',
        'GET /v1/lookup',
        'GET /v1/events',
        'GET /v1/account',
        'GET /v1/downloads/{job_id}.csv',
        'GET /v1/downloads/{job_id}.ndjson',
      ].sort(),
    );
    const params = (p: string, m: string) => (doc.paths[p]![m]!.parameters ?? []).map((x) => `${x.in}:${x.name}`).sort();
    expect(params('/v1/jobs/{job_id}/results', 'get')).toEqual(['path:job_id', 'query:cursor', 'query:decision', 'query:fields', 'query:format', 'query:limit', 'query:status']);
    expect(params('/v1/verify', 'post')).toEqual(['header:Idempotency-Key']);
    expect(params('/v1/jobs/{job_id}', 'delete')).toEqual(['header:Idempotency-Key', 'path:job_id']);
    expect(params('/v1/downloads/{job_id}.csv', 'get')).toEqual(['path:job_id', 'query:decision', 'query:exp', 'query:sig', 'query:status']);
    expect(Object.keys(doc.paths['/v1/jobs']!.post!.requestBody!.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    const verify = doc.paths['/v1/verify']!.post!.responses;
    expect(Object.keys(verify).sort()).toEqual(['200', '202', '400', '401', '402', '403', '415', '422', '429', '503']);
    expect(verify['202']!.headers).toHaveProperty('Retry-After');
    expect(verify['429']!.headers).toHaveProperty('Retry-After');
    expect(Object.keys(doc.paths['/v1/jobs']!.post!.responses)).toEqual(expect.arrayContaining(['202', '402', '413', '415', '429']));
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Result', 'Job', 'JobCreated', 'QueueInfo', 'Problem', 'ValidationProblem', 'ValidationIssue', 'Account', 'ServiceStatus', 'EventPage', 'JobList', 'ResultsPage']));
  });
});
