import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CASES, startHostileServer, type HostileServer } from '@dv/test-kit/hostile-http';
import { fetchJson } from './http.ts';

// The RDAP client against a server that answers hostilely: every request ends as an outcome
// ({ ok: false, error }) within its deadline, never as a rejection or an uncaught exception, and
// a gzip bomb is inflated no further than the size cap.

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => hostile?.close());

describe('fetchJson against a hostile RDAP server', () => {
  it('every case is a failed outcome within the deadline, with memory bounded', async () => {
    // Slack for a loaded 2-core CI machine; an unbounded drip or an inflated bomb is far past both.
    const before = process.memoryUsage().rss;
    const timeoutMs = 1_500;
    const options = { timeoutMs, maxBytes: 1024 * 1024, allowedHosts: new Set([new URL(hostile.url).host]), maxRedirects: 2 };
    const results = await Promise.all(
      HOSTILE_CASES.map(async (c) => {
        const t0 = Date.now();
        const out = await fetchJson(`${hostile.url}/${c}/domain/example.com`, options).catch((err: unknown) => ({ rejected: String(err) }));
        return { c, out, ms: Date.now() - t0 };
      }),
    );
    for (const { c, out, ms } of results) {
      expect(out, c).not.toHaveProperty('rejected');
      expect(out, c).toMatchObject({ ok: false, error: expect.any(String) });
      expect(ms, c).toBeLessThan(timeoutMs + 5_000);
    }
    const bomb = results.find((r) => r.c === 'gzip-bomb')!.out as { error: string };
    expect(bomb.error).toContain('larger than');
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});
