import { randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { Collection } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { hashKey, parseKey, revokeApiKey, type ApiKeyRecord } from '@dv/accounts';
import { startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Abuse before authentication (docs/gateway.md): credential lookups are metered per client
// address (failures cost more) on every authenticated /v1 route, /mcp, POST /oauth/token and the
// consent form; an unknown or revoked key prefix is remembered briefly so repeating it costs no
// MongoDB read, and a key created meanwhile works at once. Each test speaks from its own loopback
// address (127.0.0.x), so the addresses' allowances do not mix.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  // 30 points a minute, a failure costs 5 (6 failures); unknown prefixes remembered for a minute,
  // long enough that only the change stream can make a created key work within the test.
  h = await startGatewayHarness({ label: 'abuse', env: { AUTH_ATTEMPTS_PER_IP_PER_MINUTE: '30', AUTH_FAILURE_POINTS: '5', AUTH_NEGATIVE_CACHE_TTL_MS: '60000' } });
  a = await h.account();
});
afterAll(async () => h?.close());
afterEach(() => vi.restoreAllMocks());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies loosely
type Reply = { status: number; headers: IncomingHttpHeaders; body: any; text: string };

/** An HTTP request from a chosen loopback source address. */
function from(ip: string, path: string, opts: { method?: string; key?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers, localAddress: ip }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // an HTML page or text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const madeUpKey = () => `dv_live_${'abcdefghijkmnpqrstuvwxyz23456789'.split('').sort(() => Math.random() - 0.5).slice(0, 10).join('')}_${'A'.repeat(32)}`;

/** Counts findOne calls on api_keys (the lookup a presented key costs); real calls go through. */
function countKeyReads(): () => number {
  let n = 0;
  const original = Collection.prototype.findOne;
  vi.spyOn(Collection.prototype, 'findOne').mockImplementation(function (this: Collection, ...args: unknown[]) {
    if (this.collectionName === COLLECTIONS.apiKeys.name) n++;
    return (original as (...a: unknown[]) => unknown).apply(this, args) as never;
  });
  return () => n;
}

async function eventually(check: () => Promise<boolean>, ms = 3_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('negative cache of unknown key prefixes', () => {
  it('a repeated unknown key costs one MongoDB read; the same prefix created later works at once', async () => {
    const ip = '127.0.0.2';
    const key = madeUpKey();
    const reads = countKeyReads();
    for (let i = 0; i < 3; i++) expect((await from(ip, '/v1/account', { key })).body.code).toBe('invalid_api_key');
    expect(reads()).toBe(1);
    // The key now comes to exist (as createApiKey stores it): the change stream drops the prefix.
    const record: ApiKeyRecord = { _id: `key_${randomBytes(8).toString('hex')}`, account_id: a.account._id, name: 'late', mode: 'live', prefix: parseKey(key)!.prefix, hash: hashKey(key), created_at: new Date(), revoked_at: null, last_used_at: null };
    await h.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).insertOne(record);
    expect(await eventually(async () => (await from(ip, '/v1/account', { key })).status === 200, 2_000)).toBe(true);
  });

  it('remembers a revoked prefix too, but never an active one (a wrong secret is looked up every time)', async () => {
    const ip = '127.0.0.3';
    const b = await h.account();
    const prefix = parseKey(b.live)!.prefix;
    const wrong = `${prefix}_${'Z'.repeat(32)}`;
    const reads = countKeyReads();
    for (let i = 0; i < 2; i++) expect((await from(ip, '/v1/account', { key: wrong })).status).toBe(401);
    expect(reads()).toBe(2);
    expect((await from(ip, '/v1/account', { key: b.live })).status).toBe(200);
    await revokeApiKey(h.db, prefix);
    expect(await eventually(async () => (await from(ip, '/v1/account', { key: b.live })).status === 401)).toBe(true);
    const before = reads();
    expect((await from(ip, '/v1/account', { key: b.live })).status).toBe(401);
    expect(reads()).toBe(before);
  });
});

describe('per-address limiter in front of authentication', () => {
  it('unknown keys from one address: 401 until its points are used, then 429 with Retry-After and no MongoDB read', async () => {
    const ip = '127.0.0.4';
    // A key this address used before the flood is remembered, so it is not metered and keeps working.
    expect((await from(ip, '/v1/account', { key: a.sandbox })).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await from(ip, '/v1/jobs', { key: madeUpKey() })).status).toBe(401);
    const reads = countKeyReads();
    const limited = await from(ip, '/v1/account', { key: madeUpKey() });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The same over MCP, in the same problem shape.
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const mcp = await from(ip, '/mcp', { key: madeUpKey(), body: init, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    expect(mcp.status).toBe(429);
    expect(mcp.body.code).toBe('rate_limited');
    expect(mcp.headers['retry-after']).toBeDefined();
    // Even a real key that needs a lookup waits: the limiter stands before the key store.
    expect((await from(ip, '/v1/account', { key: a.live })).status).toBe(429);
    expect(reads()).toBe(0);
    expect((await from(ip, '/v1/account', { key: a.sandbox })).status).toBe(200);
    // Another address is not affected.
    expect((await from('127.0.0.5', '/v1/account', { key: madeUpKey() })).status).toBe(401);
    expect((await from('127.0.0.5', '/v1/account', { key: a.live })).status).toBe(200);
  });

  it('successes cost less than failures', async () => {
    // 25 lookups of good keys (fresh keys are not remembered yet) fit where 6 failures do not.
    const ip = '127.0.0.6';
    const accounts = await Promise.all(Array.from({ length: 12 }, () => h.account()));
    for (const t of accounts) {
      expect((await from(ip, '/v1/account', { key: t.live })).status).toBe(200);
      expect((await from(ip, '/v1/account', { key: t.sandbox })).status).toBe(200);
    }
  });

  it('malformed keys cost no lookup and no point', async () => {
    const ip = '127.0.0.7';
    for (let i = 0; i < 40; i++) expect((await from(ip, '/v1/account', { key: `dv_live_short_${i}` })).status).toBe(401);
  });

  it('POST /oauth/token: refused clients count; over the limit 429 too_many_requests (OAuth JSON) with Retry-After', async () => {
    const ip = '127.0.0.8';
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (let i = 0; i < 6; i++) {
      const r = await from(ip, '/oauth/token', { headers: form, body: `grant_type=authorization_code&code=x&client_id=nobody${i}` });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_client');
    }
    const r = await from(ip, '/oauth/token', { headers: form, body: 'grant_type=authorization_code&code=x&client_id=nobody' });
    expect(r.status).toBe(429);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body.error).toBe('too_many_requests');
    expect(r.body.error_description).toMatch(/retry in \d+ s/);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('the consent form POST is metered: a 429 page with Retry-After once the address is over', async () => {
    const ip = '127.0.0.9';
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (let i = 0; i < 30; i++) expect((await from(ip, '/oauth/authorize', { headers: form, body: 'request=forged&decision=approve&api_key=x' })).status).toBe(400);
    const r = await from(ip, '/oauth/authorize', { headers: form, body: 'request=forged&decision=approve&api_key=x' });
    expect(r.status).toBe(429);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).toMatch(/Too many attempts/);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
