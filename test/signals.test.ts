import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '@dv/stack';
import { startStack, type Stack } from '@dv/stack';
import { until } from '@dv/test-kit';

// Operator-grade signals of a real service process, on a private NATS it can stop:
// SIGTERM turns readiness off before the listener closes, a dependency's blip shorter than
// READINESS_GRACE_MS leaves the pod ready, a longer outage does not, and liveness never follows
// a dependency.

let dir: string;
let stack: Stack;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dv-signals-'));
  stack = await startStack({ dataDir: dir, servers: ['nats'] });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const probeEnv = { PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', LOG_LEVEL: 'info' };

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

describe('a service process', () => {
  it('on SIGTERM answers /readyz 503 while still serving for SHUTDOWN_DELAY_MS, then exits 0', async () => {
    const lines: string[] = [];
    const proc = await startServiceProcess('probe-node', { env: { ...stack.env, ...probeEnv, SHUTDOWN_DELAY_MS: '4000' }, logDir: join(dir, 'logs'), onLine: (l) => lines.push(l) });
    expect((await readyz(proc.url))?.status).toBe(200);
    proc.child.kill('SIGTERM');
    const draining = await until(async () => {
      const r = await readyz(proc.url);
      return r?.status === 503 ? r : null;
    }, 10_000, 'readiness off after SIGTERM', 50);
    expect(draining.body).toMatchObject({ status: 'not_ready', draining: true });
    // Liveness still answers while readiness is off: the process is fine, it is leaving.
    expect((await fetch(`${proc.url}/healthz`)).status).toBe(200);
    expect(await proc.exited).toBe(0);
    // The last lines may still be in the pipe when the exit is seen.
    await until(() => lines.some((l) => l.includes('"shutdown: done"')), 5_000, 'the last log line read');
    const order = ['shutdown: readiness off; waiting before closing the listener', 'shutdown: draining', 'shutdown: done'].map((m) => lines.findIndex((l) => l.includes(`"${m}"`)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  }, 60_000);

  it('stays ready through a NATS outage shorter than READINESS_GRACE_MS, turns unready after it, ready again once NATS is back', async () => {
    const proc = await startServiceProcess('probe-node', { env: { ...stack.env, ...probeEnv, READINESS_GRACE_MS: '3000' }, logDir: join(dir, 'logs') });
    try {
      await stack.servers.nats!.stop();
      const tolerated = await until(async () => {
        const r = await readyz(proc.url);
        return r && Array.isArray(r.body.tolerating) ? r : null;
      }, 10_000, 'nats seen down within the grace', 50);
      expect(tolerated).toMatchObject({ status: 200, body: { status: 'ready', tolerating: ['nats'], dependencies: { nats: 'down' } } });
      const metrics = await (await fetch(`${proc.url}/metrics`)).text();
      expect(metrics).toMatch(/dependency_up\{dependency="nats",service="probe-node"\} 0/);
      const failed = await until(async () => {
        const r = await readyz(proc.url);
        return r?.status === 503 ? r : null;
      }, 15_000, 'unready once the grace is spent', 100);
      expect(failed.body).toMatchObject({ status: 'not_ready', down: ['nats'] });
      // Liveness is the process only.
      expect((await fetch(`${proc.url}/healthz`)).status).toBe(200);
      await stack.servers.nats!.start();
      await until(async () => (await readyz(proc.url))?.status === 200, 30_000, 'ready again');
    } finally {
      if (!stack.servers.nats!.running()) await stack.servers.nats!.start();
      await proc.stop();
    }
  }, 90_000);
});
