import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { applySchema } from '@dv/stack';
import { SERVICE_NAMES, startServiceProcess, type RunningProcess, type ServiceName } from '@dv/stack';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';
import type { ServerName } from '@dv/stack';

// Each service against a private stack of its own (this file stops and restarts servers, which
// must not disturb other test files).
const NEEDS: Record<ServiceName, ServerName[]> = {
  gateway: ['nats', 'redis', 'mongodb'],
  scheduler: ['nats', 'redis', 'mongodb'],
  'probe-node': ['nats'],
  lookup: ['redis', 'mongodb'],
  'portfolio-scanner': ['nats', 'redis', 'mongodb'],
};

let stack: Stack;
let dataDir: string;
const running = new Map<ServiceName, RunningProcess>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dv-services-'));
  stack = await startStack({ dataDir });
  // A short readiness grace: a stopped server still turns /readyz 503, after 2 s instead of 10.
  const env = { ...stack.env, LOG_LEVEL: 'info', MONGODB_DB: 'services_test', READINESS_GRACE_MS: '2000' };
  const client = new MongoClient(stack.env.MONGODB_URL as string);
  await applySchema(client.db(env.MONGODB_DB));
  await client.close();
  await Promise.all(SERVICE_NAMES.map(async (name) => running.set(name, await startServiceProcess(name, { env, logDir: join(dataDir, 'logs') }))));
}, 180_000);

afterAll(async () => {
  await Promise.allSettled([...running.values()].map((p) => p.stop()));
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

async function readyz(name: ServiceName): Promise<{ status: number; body: { status: string; down?: string[] } }> {
  const res = await fetch(`${running.get(name)!.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: (await res.json()) as { status: string; down?: string[] } };
}

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (ok(last)) return last;
    } catch {
      // keep polling
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

describe('every service', () => {
  it('answers /healthz, /readyz and /metrics with an HTTP duration histogram by route template', async () => {
    for (const name of SERVICE_NAMES) {
      const base = running.get(name)!.url;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(await readyz(name)).toMatchObject({ status: 200, body: { status: 'ready' } });
      await fetch(`${base}/no/such/path/123`);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('process_cpu_seconds_total');
      expect(metrics).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/readyz"[^}]*status_code="200"/);
      expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*route="unmatched"[^}]*status_code="404"/);
      expect(metrics).not.toContain('/no/such/path');
    }
  });

  it('gateway answers GET /v1/health and unknown routes with problem+json', async () => {
    const base = running.get('gateway')!.url;
    const health = await fetch(`${base}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const missing = await fetch(`${base}/v1/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(await missing.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  for (const server of ['redis', 'nats', 'mongodb'] as const) {
    it(`/readyz turns 503 naming ${server} while it is down and 200 after it restarts, without restarting the service`, { timeout: 120_000 }, async () => {
      const dependents = SERVICE_NAMES.filter((s) => NEEDS[s].includes(server));
      const others = SERVICE_NAMES.filter((s) => !NEEDS[s].includes(server));
      const pids = new Map(SERVICE_NAMES.map((s) => [s, running.get(s)!.child.pid]));
      await stack.servers[server]!.stop();
      try {
        for (const name of dependents) {
          const r = await eventually(() => readyz(name), (v) => v.status === 503, 20_000);
          expect(r.body.down).toContain(server);
        }
        for (const name of others) expect((await readyz(name)).status).toBe(200);
      } finally {
        await stack.servers[server]!.start();
      }
      for (const name of dependents) await eventually(() => readyz(name), (v) => v.status === 200, 60_000);
      for (const name of SERVICE_NAMES) expect(running.get(name)!.child.pid).toBe(pids.get(name));
    });
  }

  it('drains and exits 0 within 10 s of SIGTERM', { timeout: 60_000 }, async () => {
    await Promise.all(
      SERVICE_NAMES.map(async (name) => {
        const proc = running.get(name)!;
        const t0 = Date.now();
        const code = await proc.stop(15_000);
        expect({ name, code }).toEqual({ name, code: 0 });
        expect(Date.now() - t0).toBeLessThan(10_000);
        running.delete(name);
      }),
    );
  });
});

describe('bad configuration', () => {
  it('exits with one message that lists every bad variable', async () => {
    const run = promisify(execFile);
    const err = await run(process.execPath, [join(REPO_ROOT, 'probe-node/src/main.ts')], {
      env: { ...process.env, PORT: 'x', NATS_URL: 'http://nope', PROBE_MAIL_FROM: 'not-an-address', PROBE_SOURCE_IPS: '10.0.0.1,banana', LOG_LEVEL: 'chatty' },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(78);
    for (const name of ['PORT', 'NATS_URL', 'PROBE_MAIL_FROM', 'PROBE_SOURCE_IPS', 'LOG_LEVEL']) expect(err?.stderr).toContain(`- ${name}:`);
    expect(err?.stderr.match(/invalid configuration/g)).toHaveLength(1);
  });
});
