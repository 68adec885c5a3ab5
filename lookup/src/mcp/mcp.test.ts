import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailer, VerificationMail } from '../keys/mailer.ts';
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine.ts';
import { startLookup, type LookupHarness } from '../testing/harness.ts';

// The MCP surface through the SDK's own client: 11 tools listed and called, envelopes as
// structuredContent plus a text summary, errors as tool errors an agent can act on.

let h: LookupHarness;
let engine: FakeEngine;
const mails: VerificationMail[] = [];
const mailer: Mailer = { sendVerification: async (m) => void mails.push(m), close: () => undefined };

beforeAll(async () => {
  engine = createFakeEngine();
  h = await startLookup({ engine, mailer, env: { TRUSTED_PROXIES: '127.0.0.1,::1', SOURCE_BASE_URL: 'https://tools.example' }, label: 'mcp' });
});
afterAll(async () => h?.close());

async function connect(ip: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'lookup-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { 'X-Forwarded-For': ip, ...headers } } }));
  return client;
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;
const text = (r: unknown) => ((r as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('MCP server', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('192.0.2.50');
  });
  afterAll(async () => client?.close());

  it('negotiates protocol revision 2025-11-25 and lists the 11 tools with agent-facing descriptions', async () => {
    expect(client.getServerVersion()?.name).toBe('domain-lookup');
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
    });
    expect(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['blacklist_check', 'dkim_discover', 'dmarc_check', 'dns_lookup', 'email_security_check', 'fetch', 'request_api_key', 'search', 'spf_analyze', 'validate', 'whois_lookup'].sort(),
    );
    for (const t of tools) expect(t.description?.length).toBeGreaterThan(80);
    const dns = tools.find((t) => t.name === 'dns_lookup');
    expect(Object.keys(dns?.inputSchema.properties ?? {})).toEqual(['domain', 'ip', 'detail']);
    expect(Object.keys(tools.find((t) => t.name === 'email_security_check')?.inputSchema.properties ?? {})).toEqual(['domain', 'detail']);
    expect(tools.find((t) => t.name === 'spf_analyze')?.inputSchema.required).toEqual(['domain']);
    expect(Object.keys(tools.find((t) => t.name === 'whois_lookup')?.inputSchema.properties ?? {})).toEqual(['domain', 'ip']);
    expect(Object.keys(tools.find((t) => t.name === 'validate')?.inputSchema.properties ?? {})).toEqual(['record']);
    expect(Object.keys(tools.find((t) => t.name === 'search')?.inputSchema.properties ?? {})).toEqual(['query']);
    expect(Object.keys(tools.find((t) => t.name === 'fetch')?.inputSchema.properties ?? {})).toEqual(['id']);
    expect(Object.keys(tools.find((t) => t.name === 'request_api_key')?.inputSchema.properties ?? {})).toEqual(['email']);
  });

  it('calls every core tool and returns the REST envelope as structuredContent plus a text summary', async () => {
    const calls: [string, Record<string, string>][] = [
      ['dns_lookup', { domain: 'mcp.test', detail: 'full' }],
      ['email_security_check', { domain: 'mcp.test' }],
      ['dkim_discover', { domain: 'mcp.test' }],
      ['whois_lookup', { ip: '192.0.2.1' }],
      ['spf_analyze', { domain: 'mcp.test' }],
      ['dmarc_check', { domain: 'mcp.test' }],
      ['blacklist_check', { domain: 'mcp.test' }],
      ['validate', { record: 'v=spf1 -all' }],
    ];
    let remaining = 10;
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError ?? false).toBe(false);
      remaining -= 1;
      expect(structured(result)).toMatchObject({ tool: name, summary: expect.any(String), result: expect.any(Object), data: { meta: expect.any(Object), records: expect.any(Object) }, report: expect.any(String), source: expect.stringMatching(/^https:\/\/tools\.example\//), cache: 'live', usage: { remaining_today: remaining, limit: 10, tier: 'anonymous' } });
      expect(text(result)).toContain(String(structured(result).summary));
    }
    expect(engine.calls[0]).toEqual({ tool: 'dns_lookup', input: { target: 'mcp.test', detail: 'full' } });
  });

  it('search returns <tool>:<domain> ids for DNS, email security, DMARC and WHOIS; fetch runs one', async () => {
    const before = engine.calls.length;
    const found = await client.callTool({ name: 'search', arguments: { query: 'Is research.test protected against spoofing?' } });
    const ids = (structured(found).results as { id: string }[]).map((r) => r.id);
    expect(ids).toEqual(['dns_lookup:research.test', 'email_security_check:research.test', 'dmarc_check:research.test', 'whois_lookup:research.test']);
    expect(engine.calls.length).toBe(before); // search ran no lookup

    const fetched = await client.callTool({ name: 'fetch', arguments: { id: 'email_security_check:research.test' } });
    expect(structured(fetched)).toMatchObject({ id: 'email_security_check:research.test', tool: 'email_security_check', url: expect.stringContaining('/email-security/research.test'), text: expect.stringContaining('research.test'), data: { records: { TXT: expect.any(Array) } } });
    expect(engine.calls.at(-1)).toEqual({ tool: 'email_security_check', input: { target: 'research.test', detail: 'full' } });

    const none = await client.callTool({ name: 'search', arguments: { query: 'how does SPF work' } });
    expect(structured(none).results).toEqual([]);
    const badId = await client.callTool({ name: 'fetch', arguments: { id: 'research.test' } });
    expect(badId.isError).toBe(true);
  });

  it('request_api_key sends the verification email', async () => {
    const result = await client.callTool({ name: 'request_api_key', arguments: { email: 'agent-user@example.com' } });
    expect(result.isError ?? false).toBe(false);
    expect(structured(result)).toMatchObject({ status: 'sent', email: 'agent-user@example.com' });
    expect(mails.at(-1)?.to).toBe('agent-user@example.com');
    expect(mails.at(-1)?.link).toMatch(/\/v1\/keys\/verify\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('reports a bad target as a tool error with the reason, and sends nothing to the engine', async () => {
    const before = engine.calls.length;
    const result = await client.callTool({ name: 'dmarc_check', arguments: { domain: 'bad..domain' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/empty label/);
    expect(text(result)).toMatch(/"code":"invalid_target"/);
    const both = await client.callTool({ name: 'blacklist_check', arguments: { domain: 'a.test', ip: '192.0.2.1' } });
    expect(both.isError).toBe(true);
    expect(engine.calls.length).toBe(before);
  });
});

describe('MCP quota and keys', () => {
  it('an exhausted allowance is a tool error that advises request_api_key; cached answers stay free', async () => {
    const client = await connect('192.0.2.60');
    for (let i = 0; i < 10; i++) await client.callTool({ name: 'spf_analyze', arguments: { domain: `q${i}.mcp.test` } });
    const refused = await client.callTool({ name: 'spf_analyze', arguments: { domain: 'q10.mcp.test' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/request_api_key/);
    expect(text(refused)).toMatch(/"code":"quota_exhausted"/);
    const cached = await client.callTool({ name: 'spf_analyze', arguments: { domain: 'q1.mcp.test' } });
    expect(structured(cached)).toMatchObject({ cache: 'cached', usage: { remaining_today: 0 } });
    await client.close();
  });

  it('an invalid bearer key is refused with 401 before any JSON-RPC', async () => {
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer dk_free_nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
