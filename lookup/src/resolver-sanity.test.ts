// A lying resolver never says "does not exist": against a real resolver on loopback that answers
// NXDOMAIN to every name (then one address to every name), GET /v1/email-security/gmail.com
// answers 503 naming the unreliable resolver (not counted, not cached), never "domain does not exist".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@dv/runtime';
import { startLyingDnsServer, type LyingDnsServer } from '@dv/world';
import { lookupConfigSchema } from './config.ts';
import { createLookupEngine, type Engine } from './engine.ts';
import { startLookup, type LookupHarness } from './testing/harness.ts';

let liar: LyingDnsServer;
let engine: Engine;
let h: LookupHarness;

beforeAll(async () => {
  liar = await startLyingDnsServer('nxdomain');
  const env = { DNS_SERVERS: liar.server, DNS_CANARIES: 'gmail.com,outlook.com,yahoo.com', DNS_CANARY_UNRELIABLE_INTERVAL_MS: '200', DNS_TIMEOUT_MS: '500', LOG_LEVEL: 'silent' };
  engine = createLookupEngine(loadConfig('lookup', lookupConfigSchema, env));
  h = await startLookup({ engine, env, label: 'sanity' });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await engine?.close();
  await liar?.stop();
});

async function emailSecurity(domain: string): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${h.url}/v1/email-security/${domain}`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

describe('lookups through a lying resolver', () => {
  it('an NXDOMAIN-to-everything resolver: 503 resolver unreliable, not "does not exist"', async () => {
    const r = await emailSecurity('gmail.com');
    expect(JSON.stringify(r.body)).not.toMatch(/does not exist/);
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('service_unavailable');
    expect(r.body.detail).toMatch(/DNS resolver is unreliable/);
    expect(r.body.reason).toBe('resolver_unreliable');
    expect(Number(r.retryAfter)).toBeGreaterThan(0);
  }, 30_000);

  it('a resolver answering every name with one address: 503 too', async () => {
    liar.setMode('one_address');
    await new Promise((r) => setTimeout(r, 800));
    const r = await emailSecurity('outlook.com');
    expect(r.status).toBe(503);
    expect(r.body.detail).toMatch(/same address/);
  }, 30_000);
});
