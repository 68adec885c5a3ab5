import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// When a backing server goes away the gateway answers a temporary problem (503/504 with
// Retry-After), never a 500, and reads that do not need the lost server keep working.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'outage' });
  a = await h.account();
});
afterAll(async () => h?.close());

describe('NATS down', () => {
  it('writes answer 503/504 with Retry-After; reads from MongoDB still answer', async () => {
    await h.natsStack.stop();
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'x@example.com', wait: 0 } });
    expect([503, 504]).toContain(r.status);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect(['service_unavailable', 'timeout']).toContain(r.body.code);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(h.url, '/v1/account', { key: a.sandbox })).status).toBe(200);
  }, 30_000);
});
