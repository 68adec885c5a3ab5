import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, finishHttpApp } from './http.ts';
import { createLogger } from './logger.ts';
import { createRegistry } from './metrics.ts';
import { ApiError } from './problem.ts';

let server: Server;
let base: string;
let draining = false;
let depUp = true;

beforeAll(async () => {
  const log = createLogger('test', 'silent');
  const app = createHttpApp({
    registry: createRegistry('test'),
    log,
    dependencies: () => [{ name: 'redis', isReady: async () => depUp, close: async () => undefined }],
    isShuttingDown: () => draining,
  });
  app.post('/echo', (req, res) => {
    res.json(req.body);
  });
  app.get('/boom', () => {
    throw new Error('secret internal detail');
  });
  app.get('/limited', () => {
    throw new ApiError('rate_limited', 'Slow down.', {}, { 'Retry-After': '7' });
  });
  finishHttpApp(app, log);
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function problem(res: Response) {
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return (await res.json()) as { code: string; status: number; detail: string };
}

describe('the HTTP error model', () => {
  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(res.status).toBe(400);
    expect(await problem(res)).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('answers unknown routes with 404 not_found', async () => {
    const res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe('not_found');
  });

  it('hides internal errors behind 500 internal_error', async () => {
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    const body = await problem(res);
    expect(body.code).toBe('internal_error');
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
  });

  it('renders ApiError status, code and headers from the one code table', async () => {
    const res = await fetch(`${base}/limited`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await problem(res)).toMatchObject({ code: 'rate_limited', detail: 'Slow down.' });
  });
});

describe('/readyz', () => {
  it('names the dependency that is down, and reports draining', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    depUp = false;
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'not_ready', down: ['redis'], dependencies: { redis: 'down' } });
    depUp = true;
    draining = true;
    const drainingRes = await fetch(`${base}/readyz`);
    expect(drainingRes.status).toBe(503);
    expect(await drainingRes.json()).toMatchObject({ draining: true });
    draining = false;
  });
});
