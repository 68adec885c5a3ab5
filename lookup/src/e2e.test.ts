import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { deleteByPrefix, stackEnv } from '@dv/test-kit';

// The service as it ships (lookup/src/main.ts in a child process) with the real mailsec engine,
// pointed at the simulated internet: every REST tool against scripted domains, the MCP client,
// the cache, and proof (the world's DNS query log) that a refused target sends no query.

let world: WorldHandle;
let lookup: RunningProcess;
const prefix = `t_lookup_e2e_${randomBytes(4).toString('hex')}:`;
const dbName = `t_lookup_e2e_${randomBytes(4).toString('hex')}`;
let n = 0;
const freshIp = () => `198.51.100.${++n}`;

beforeAll(async () => {
  const stack = stackEnv();
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  lookup = await startServiceProcess('lookup', {
    logDir: join(tmpdir(), 'dv-lookup-e2e'),
    env: {
      ...world.env,
      REDIS_URL: stack.REDIS_URL as string,
      MONGODB_URL: stack.MONGODB_URL as string,
      MONGODB_DB: dbName,
      REDIS_KEY_PREFIX: prefix,
      ALLOW_PRIVATE_TARGETS: 'true',
      DNSBL_ZONES: 'zen.dnsbl.test=zen.spamhaus.org',
      TRUSTED_PROXIES: '127.0.0.1',
      SOURCE_BASE_URL: 'https://tools.example',
    },
  });
}, 60_000);

afterAll(async () => {
  await lookup?.stop();
  await world?.stop();
  const stack = stackEnv();
  const redis = new Redis(stack.REDIS_URL as string);
  await deleteByPrefix(redis, prefix).finally(() => redis.quit());
  const mongo = new MongoClient(stack.MONGODB_URL as string);
  await mongo.db(dbName).dropDatabase().finally(() => mongo.close());
});

const get = async (path: string, ip = freshIp()) => {
  const res = await fetch(`${lookup.url}${path}`, { headers: { 'X-Forwarded-For': ip } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

describe('REST against the simulated internet', () => {
  it('dns: acme.test records, gateway, DMARC policy and DNSSEC', async () => {
    const { status, body } = await get('/v1/dns/acme.test');
    expect(status).toBe(200);
    expect(body).toMatchObject({ tool: 'dns_lookup', cache: 'live', source: 'https://tools.example/dns/acme.test', usage: { tier: 'anonymous', limit: 10, remaining_today: 9 } });
    expect(body.data.meta).toMatchObject({ domain: 'acme.test', dnssec: 'signed' });
    expect(body.data.records.MX).toEqual([{ priority: 10, exchange: 'mx1.acme.test' }]);
    expect(body.data.records.A).toEqual(['127.0.1.80']);
    expect(body.result['DMARC Policy (p)']).toBe('reject');
    expect(body.summary).toMatch(/acme\.test/);
  });

  it('email-security: SPF within the 10-lookup limit and DMARC reject (detail=full accepted)', async () => {
    const { status, body } = await get('/v1/email-security/acme.test?detail=full');
    expect(status).toBe(200);
    expect(body.tool).toBe('email_security_check');
    expect(body.result['SPF']).toMatch(/^v=spf1 /);
    expect(body.result['DMARC Policy (p)']).toBe('reject');
    expect(body.summary).toMatch(/DMARC policy is reject/);
  });

  it('dkim: finds selector sel1', async () => {
    const { status, body } = await get('/v1/dkim/acme.test');
    expect(status).toBe(200);
    expect(body.summary).toMatch(/sel1/);
  });

  it('whois: RDAP registration data', async () => {
    const { status, body } = await get('/v1/whois/acme.test');
    expect(status).toBe(200);
    expect(body.result['Registrar']).toBe('Simulated Registrar, Inc.');
    expect(body.summary).toMatch(/2030-03-14/);
  });

  it('spf: include tree and lookup count', async () => {
    const { status, body } = await get('/v1/spf/acme.test');
    expect(status).toBe(200);
    expect(body.summary).toMatch(/of 10 DNS lookups/);
  });

  it('dmarc: policy reject with the raw record', async () => {
    const { status, body } = await get('/v1/dmarc/acme.test');
    expect(status).toBe(200);
    expect(body.result['DMARC Policy (p)']).toBe('reject');
    expect(body.result['DMARC Record']).toMatch(/^v=DMARC1; p=reject/);
  });

  it('blacklist: a domain whose MX address is listed, and a listed IP', async () => {
    const domain = await get('/v1/blacklist/blocked.test');
    expect(domain.status).toBe(200);
    expect(domain.body.summary).toMatch(/listed/i);
    const ip = await get('/v1/blacklist/127.0.0.2');
    expect(ip.status).toBe(200);
    expect(ip.body.summary).toMatch(/listed/i);
  });

  it('validate: a pasted record, no DNS query', async () => {
    const before = world.dns.queries.length;
    const res = await fetch(`${lookup.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Forwarded-For': freshIp() }, body: JSON.stringify({ record: 'v=DMARC1; p=reject; rua=mailto:d@acme.test' }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { summary: string }).summary).toMatch(/grade/i);
    expect(world.dns.queries.length).toBe(before);
  });

  it('a repeated lookup is cached: no DNS query, not counted', async () => {
    const ip = freshIp();
    const first = await get('/v1/dmarc/catchall.test', ip);
    const before = world.dns.queries.length;
    const second = await get('/v1/dmarc/catchall.test', ip);
    expect(first.body.cache).toBe('live');
    expect(second.body).toMatchObject({ cache: 'cached', usage: { remaining_today: 9 } });
    expect(world.dns.queries.length).toBe(before);
  });
});

describe('bad input sends no DNS query', () => {
  const refused: [string, string][] = [
    ['invalid domain', '/v1/dns/acme..test'],
    ['overlong target', `/v1/dns/${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.test`],
    ['control characters', '/v1/spf/acme.test%0d%0aQUIT'],
    ['NUL', '/v1/dmarc/acme%00.test'],
    ['special-use name (refused by the engine)', '/v1/dns/printer.local'],
    ['public suffix (refused by the engine)', '/v1/whois/co.uk'],
  ];
  for (const [label, path] of refused) {
    it(label, async () => {
      const before = world.dns.queries.length;
      const { status, type, body } = await get(path);
      expect(status).toBe(400);
      expect(type).toMatch(/^application\/problem\+json/);
      expect(body.code).toBe('invalid_target');
      expect(body.detail).toEqual(expect.any(String));
      expect(world.dns.queries.length).toBe(before);
    });
  }
});

describe('MCP against the simulated internet', () => {
  it('email_security_check, search and fetch through the SDK client', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${lookup.url}/mcp`), { requestInit: { headers: { 'X-Forwarded-For': freshIp() } } }));
    try {
      expect((await client.listTools()).tools).toHaveLength(11);
      const check = (await client.callTool({ name: 'email_security_check', arguments: { domain: 'acme.test' } })) as CallToolResult;
      expect(check.isError ?? false).toBe(false);
      expect(check.structuredContent).toMatchObject({ tool: 'email_security_check', data: { meta: { domain: 'acme.test' } }, usage: { tier: 'anonymous' } });
      expect((check.content[0] as { text: string }).text).toMatch(/DMARC policy is reject/);

      const search = (await client.callTool({ name: 'search', arguments: { query: 'Does greylist.test publish DMARC?' } })) as CallToolResult;
      const ids = (search.structuredContent as { results: { id: string }[] }).results.map((r) => r.id);
      expect(ids).toContain('dmarc_check:greylist.test');
      const fetched = (await client.callTool({ name: 'fetch', arguments: { id: 'whois_lookup:acme.test' } })) as CallToolResult;
      expect(fetched.structuredContent).toMatchObject({ id: 'whois_lookup:acme.test', tool: 'whois_lookup', result: { Registrar: 'Simulated Registrar, Inc.' } });

      const before = world.dns.queries.length;
      const bad = (await client.callTool({ name: 'dns_lookup', arguments: { domain: 'acme..test' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(world.dns.queries.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});
