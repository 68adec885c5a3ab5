// Helpers every workspace's tests share. This package depends on no workspace, so any package's
// tests may use it without a cycle; helpers that need a workspace live in that workspace's own
// `testing` export (isolatedMongo: @dv/runtime/testing).
import type { Redis } from 'ioredis';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** NATS_URL, REDIS_URL, MONGODB_URL of this run's private stack (empty when DV_TEST_STACK=0); test/global-setup.ts provides it. */
    stack: Record<string, string>;
  }
}

/** The run's private stack; fails loudly when a test that needs it runs with DV_TEST_STACK=0. */
export function stackEnv(): Record<string, string> {
  const env = inject('stack');
  if (!env.MONGODB_URL) throw new Error('this test needs the test stack; run it without DV_TEST_STACK=0');
  return env;
}

/** Polls `check` every `pollMs` until it answers something truthy, and returns that; throws naming `what` after `timeoutMs`. */
export async function until<T>(check: () => Promise<T> | T, timeoutMs: number, what = 'condition', pollMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** fetch with a bearer key and a JSON (or string) body; returns status, headers and the body, parsed when it is JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies loosely
export async function call(url: string, path: string, opts: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined && typeof opts.body !== 'string') headers['content-type'] ??= 'application/json';
  const res = await fetch(`${url}${path}`, { method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers, body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** mulberry32: a small, fast seeded generator in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deletes a test's Redis keys (its own prefix) so a shared Redis does not fill up across runs. */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** True while a process with this pid exists (signal 0 tests without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
