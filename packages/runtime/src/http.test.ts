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
const registry = createRegistry('test');

beforeAll(async () => {
  const log = createLogger('test', 'silent');
  const app = createHttpApp({
    registry,
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

describe('/readyz with READINESS_GRACE_MS', () => {
  it('stays 200 while a dependency is down for less than the grace, naming it, and dependency_up shows it at once', async () => {
    let up = true;
    const registry = createRegistry('grace');
    const app = createHttpApp({ registry, log: createLogger('test', 'silent'), dependencies: () => [{ name: 'redis', isReady: async () => up, close: async () => undefined }], isShuttingDown: () => false, readinessGraceMs: 600_000 });
    const srv = createServer(app);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      up = false;
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ready', down: ['redis'], tolerating: ['redis'], dependencies: { redis: 'down' } });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('dependency_up{dependency="redis",service="grace"} 0');
      expect(metrics).toContain('service_ready{service="grace"} 1');
      up = true;
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', dependencies: { redis: 'up' } });
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('/readyz with an advisory dependency', () => {
  it('stays 200 while it is down, naming it under degraded; dependency_up shows it; a real dependency still fails', async () => {
    let resolverUp = false;
    let redisUp = true;
    const registry = createRegistry('advisory');
    const deps = () => [
      { name: 'resolver', advisory: true, isReady: async () => resolverUp, close: async () => undefined },
      { name: 'redis', isReady: async () => redisUp, close: async () => undefined },
    ];
    const app = createHttpApp({ registry, log: createLogger('test', 'silent'), dependencies: deps, isShuttingDown: () => false });
    const srv = createServer(app);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ status: 'ready', degraded: ['resolver down'], dependencies: { resolver: 'down', redis: 'up' } });
      expect(body.down).toBeUndefined();
      expect(await (await fetch(`${url}/metrics`)).text()).toContain('dependency_up{dependency="resolver",service="advisory"} 0');
      redisUp = false;
      const both = await fetch(`${url}/readyz`);
      expect(both.status).toBe(503);
      expect(await both.json()).toMatchObject({ down: ['redis'], degraded: ['resolver down'] });
      [resolverUp, redisUp] = [true, true];
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', dependencies: { resolver: 'up', redis: 'up' } });
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('readiness metrics', () => {
  async function scrape(): Promise<string> {
    return (await fetch(`${base}/metrics`)).text();
  }
  function value(text: string, series: string): number {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    expect(line, series).toBeDefined();
    return Number(line!.split(' ')[1]);
  }

  it('dependency_up and service_ready follow /readyz at each scrape, and every change of readiness is counted', async () => {
    const changes = 'service_readiness_changes_total{service="test"}';
    let text = await scrape();
    expect(value(text, 'service_ready{service="test"}')).toBe(1);
    expect(value(text, 'dependency_up{dependency="redis",service="test"}')).toBe(1);
    const before = value(text, changes);

    depUp = false;
    try {
      text = await scrape();
      expect(value(text, 'service_ready{service="test"}')).toBe(0);
      expect(value(text, 'dependency_up{dependency="redis",service="test"}')).toBe(0);
      expect(value(text, changes)).toBe(before + 1);
    } finally {
      depUp = true;
    }
    // A flap between scrapes, seen only by the kubelet's /readyz calls, is still counted.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    draining = true;
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
    } finally {
      draining = false;
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    text = await scrape();
    expect(value(text, 'service_ready{service="test"}')).toBe(1);
    expect(value(text, 'dependency_up{dependency="redis",service="test"}')).toBe(1);
    expect(value(text, changes)).toBe(before + 4);
  });
});

describe('trust proxy (TRUSTED_PROXIES)', () => {
  // The same request from 127.0.0.1 claiming another address: believed only when 127.0.0.1 is a listed proxy.
  async function ipSeen(trustedProxies?: readonly string[]): Promise<string> {
    const app = createHttpApp({ registry: createRegistry('trust'), log: createLogger('test', 'silent'), dependencies: () => [], isShuttingDown: () => false, trustedProxies });
    app.get('/ip', (req, res) => {
      res.json({ ip: req.ip });
    });
    const srv = createServer(app);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/ip`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      return ((await res.json()) as { ip: string }).ip;
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  }

  it('ignores X-Forwarded-For by default and from peers not listed', async () => {
    expect(await ipSeen()).toBe('127.0.0.1');
    expect(await ipSeen([])).toBe('127.0.0.1');
    expect(await ipSeen(['10.0.0.0/8'])).toBe('127.0.0.1');
  });

  it('believes it from a listed proxy', async () => {
    expect(await ipSeen(['127.0.0.1'])).toBe('203.0.113.9');
    expect(await ipSeen(['10.0.0.0/8', '127.0.0.0/8'])).toBe('203.0.113.9');
  });
});
