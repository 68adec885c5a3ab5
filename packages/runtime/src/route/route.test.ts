import type { AddressInfo } from 'node:net';
import { createServer, get, type Server } from 'node:http';
import express from 'express';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineHttpRoute } from './define.ts';
import type { ValidationIssue } from './issues.ts';
import { mountHttpRoutes, mountRouteErrors } from './mount.ts';
import { routeOperation } from './openapi.ts';

// The shared route helper with a toy API: errors are {kind, ...} objects its renderer writes as
// JSON, so each assertion sees which of the API's parameters the helper chose.

interface Ctx {
  aborted: Promise<string>;
  onAbort: (why: string) => void;
}
type Caller = { who: string };

class Toy {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    this.status = status;
    this.body = body;
  }
}

const define = defineHttpRoute<Ctx, Caller>();
let markAborted: (why: string) => void = () => undefined;
const ctx: Ctx = { aborted: new Promise<string>((r) => (markAborted = r)), onAbort: (why) => markAborted(why) };

const routes = [
  define({
    method: 'post',
    path: '/items/{id}',
    operationId: 'putItem',
    summary: 'item',
    tags: ['t'],
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    headers: z.object({ 'Idempotency-Key': z.string().regex(/^[a-z]+$/, 'lower-case letters').optional() }),
    body: z.object({ n: z.number().int().max(10) }),
    responses: {},
    handle: ({ input, caller }) => ({ status: 201, body: { id: input.params.id, n: input.body.n, key: input.headers['Idempotency-Key'] ?? null, caller: caller.who } }),
  }),
  define({
    method: 'post',
    path: '/upload',
    operationId: 'upload',
    summary: 'raw',
    tags: ['t'],
    auth: false,
    rawBody: true,
    body: z.object({ never: z.literal(true) }),
    requestBodyExtra: { 'text/plain': { schema: z.string() } },
    responses: {},
    handle: ({ input, caller }) => ({ status: 200, body: { body: input.body ?? null, caller: caller ?? null } }),
  }),
  define({
    method: 'get',
    path: '/wait',
    operationId: 'wait',
    summary: 'waits for the client to leave',
    tags: ['t'],
    auth: 'optional',
    responses: {},
    handle: async ({ signal, res }) => {
      res.flushHeaders();
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      ctx.onAbort('client gone');
    },
  }),
];

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(express.json());
  mountHttpRoutes(app, routes, {
    ctx,
    authenticate: async (req) => {
      if (req.headers.authorization === 'Bearer bad') throw new Toy(401, { kind: 'auth' });
      return { who: req.headers.authorization ?? 'anonymous' };
    },
    invalid: (issues: ValidationIssue[], where) => new Toy(422, { kind: 'invalid', where, issues }),
    notJson: () => new Toy(415, { kind: 'notJson' }),
    methodNotAllowed: (method, path, allow) => new Toy(405, { kind: 'method', method, path, allow }),
    send: (res, reply) => res.status(reply.status).json(reply.body),
  });
  mountRouteErrors(app, {
    notFound: (req) => new Toy(404, { kind: 'notFound', path: req.path }),
    render: (err, _req, res) => {
      if (err instanceof Toy) res.status(err.status).json(err.body);
      else res.status(500).json({ kind: 'other' });
    },
  });
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${base}${path}`, { method, headers: init.headers, body: init.body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}
const json = { 'content-type': 'application/json', authorization: 'Bearer k1' };

describe('mountHttpRoutes', () => {
  it('validates path, headers (by the schema\'s spelling, any case on the wire) and body, then answers with the caller', async () => {
    const ok = await call('POST', '/items/7', { headers: { ...json, 'idempotency-key': 'abc' }, body: '{"n":3}' });
    expect(ok).toMatchObject({ status: 201, body: { id: '7', n: 3, key: 'abc', caller: 'Bearer k1' } });
    const noKey = await call('POST', '/items/7', { headers: json, body: '{"n":3}' });
    expect(noKey.body.key).toBeNull();
  });

  it('gives the API\'s invalid() the issues with where they came from and their bounds', async () => {
    const badHeader = await call('POST', '/items/7', { headers: { ...json, 'Idempotency-Key': 'ABC' }, body: '{"n":3}' });
    expect(badHeader.status).toBe(422);
    expect(badHeader.body).toMatchObject({ where: 'header', issues: [{ loc: ['header', 'Idempotency-Key'], msg: 'lower-case letters', input: 'ABC' }] });
    const badBody = await call('POST', '/items/7', { headers: json, body: '{"n":11}' });
    expect(badBody.body).toMatchObject({ where: 'body', issues: [{ loc: ['body', 'n'], type: 'too_big', input: 11, ctx: { maximum: 10 } }] });
    const badPath = await call('POST', '/items/x', { headers: json, body: '{"n":1}' });
    expect(badPath.body).toMatchObject({ where: 'path', issues: [{ loc: ['path', 'id'] }] });
  });

  it('authenticates before anything else, and refuses a body that is not JSON', async () => {
    expect((await call('POST', '/items/x', { headers: { ...json, authorization: 'Bearer bad' }, body: '{"n":99}' })).body).toEqual({ kind: 'auth' });
    expect((await call('POST', '/items/7', { headers: { 'content-type': 'text/plain' }, body: '{"n":1}' })).body).toEqual({ kind: 'notJson' });
  });

  it('leaves a rawBody route\'s body to its handler: no JSON check, no parse, no caller on auth: false', async () => {
    const res = await call('POST', '/upload', { headers: { 'content-type': 'text/plain' }, body: 'a,b' });
    expect(res).toMatchObject({ status: 200, body: { body: null, caller: null } });
  });

  it('answers other methods on a known path with the API\'s 405 and Allow (GET brings HEAD), unknown paths with its 404', async () => {
    expect((await call('DELETE', '/wait')).body).toEqual({ kind: 'method', method: 'DELETE', path: '/wait', allow: 'GET, HEAD' });
    expect((await call('GET', '/items/7')).body).toEqual({ kind: 'method', method: 'GET', path: '/items/{id}', allow: 'POST' });
    expect((await call('GET', '/nowhere')).body).toEqual({ kind: 'notFound', path: '/nowhere' });
  });

  it('aborts the handler\'s signal when the client goes away', async () => {
    // The handler has sent its headers and waits; the client then drops the connection.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = get(`${base}/wait`, (res) => {
        resolve(res.statusCode);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(status).toBe(200);
    await expect(ctx.aborted).resolves.toBe('client gone');
  });
});

describe('routeOperation', () => {
  const security = [{ key: [] }];
  const op = (i: number) => routeOperation(routes[i]!, { security });

  it('documents the security of each auth mode: required, none, optional', () => {
    expect(op(0).security).toEqual(security);
    expect(op(1).security).toEqual([]);
    expect(op(2).security).toEqual([{}, ...security]);
  });

  it('documents headers as header parameters and extra body media types beside JSON', () => {
    expect(Object.keys(op(0).requestParams ?? {}).sort()).toEqual(['header', 'path']);
    expect(Object.keys(op(1).requestBody?.content ?? {}).sort()).toEqual(['application/json', 'text/plain']);
  });
});
