import type { AddressInfo } from 'node:net';
import express from 'express';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { createLogger } from '@dv/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../context.ts';
import { mountErrorHandlers } from '../http/route.ts';
import { errorResult } from './reply.ts';

// REST and MCP are two faces of one API: a failure met behind either must get the same code and
// status (a duplicate key is our bug, a 500; a MongoDB that is gone is a 503 to retry).
const FAILURES: [string, () => unknown, string][] = [
  ['a duplicate key', () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }), 'internal_error'],
  ['a primary stepping down', () => new MongoServerError({ message: 'PrimarySteppedDown', code: 189 }), 'service_unavailable'],
  ['a MongoDB connection reset', () => new MongoNetworkError('connection reset'), 'service_unavailable'],
  ['Redis gone', () => new Error('Connection is closed.'), 'service_unavailable'],
  ['a NATS request timeout', () => Object.assign(new Error('timeout'), { name: 'TimeoutError' }), 'timeout'],
  ['a bug', () => new TypeError('x is undefined'), 'internal_error'],
];

const ctx = { log: createLogger('test', 'silent'), metrics: { errors: { inc: () => undefined } } } as unknown as GatewayContext;
let base = '';
let server: ReturnType<ReturnType<typeof express>['listen']>;

beforeAll(async () => {
  const app = express();
  app.get('/fail/:i', (req) => {
    throw FAILURES[Number(req.params.i)]![1]();
  });
  mountErrorHandlers(app, ctx);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

describe('one failure, one answer on REST and MCP', () => {
  it.each(FAILURES.map((f, i) => [f[0], f[2], i] as const))('%s -> %s', async (_what, code, i) => {
    const res = await fetch(`${base}/fail/${i}`);
    const rest = (await res.json()) as { code: string; status: number };
    const mcp = errorResult(FAILURES[i]![1](), ctx);
    const mcpProblem = JSON.parse((mcp.content[1] as { text: string }).text) as { code: string; status: number };
    expect(rest.code).toBe(code);
    expect(mcp.isError).toBe(true);
    expect(mcpProblem.code).toBe(rest.code);
    expect(mcpProblem.status).toBe(res.status);
    if (res.status >= 503) expect(res.headers.get('retry-after')).toBe('2');
  });
});
