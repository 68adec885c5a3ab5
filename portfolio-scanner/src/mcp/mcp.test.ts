import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type AccountDomainDoc, PORTFOLIO_PLANS, type PortfolioKeyDoc, type WhoisDoc } from '@dv/contracts';
import { errorEnvelope, INTERVAL_S, startHarness, type Harness } from '../api/testing/harness.ts';
import { ApiLimits } from '../api/limits.ts';
import { outcome } from '../store/fixtures.ts';
import { slotOf, storeScan } from '../store/index.ts';
import { MCP_PROMPT_NAMES, MCP_RESOURCE_URIS, MCP_TOOL_NAMES } from './index.ts';

// The connector through the MCP SDK's own client against the in-process portfolio service (real
// MongoDB and Redis, real stored scans): every tool, prompt and resource; another account's
// domains invisible; keys, plans and the shared per-minute limit; the HTTP edges of /mcp.

const HOUR = 3_600_000;
let h: Harness;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let client: Client;
const ids: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured content of every shape
type Json = any;

async function connect(key: string): Promise<Client> {
  const c = new Client({ name: 'portfolio-mcp-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return c;
}

async function tool(c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ result: CallToolResult; data: Json; text: string }> {
  const result = (await c.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((x) => (x.type === 'text' ? x.text : '')).join('\n');
  return { result, data: result.structuredContent, text };
}

async function resource(c: Client, uri: string): Promise<Json> {
  const r = await c.readResource({ uri });
  return JSON.parse((r.contents[0] as TextResourceContents).text);
}

/** One raw JSON-RPC POST to /mcp (for the HTTP edges the SDK client never shows). */
async function rpc(key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return h.call('POST', '/mcp', { key, body, headers: { accept: 'application/json, text/event-stream', ...headers } });
}

beforeAll(async () => {
  h = await startHarness('pmcp', { connector: true });
  a = await h.account('enterprise_max');
  b = await h.account('enterprise_max');
  const add = await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['alpha.example.test', 'beta.example.test', 'gamma.example.test'] } });
  for (const r of add.body.data) ids[r.domain.split('.')[0]] = r.id;
  await h.call('POST', '/api/v1/domains/', { key: b.key, body: { domains: ['other.example.test'] } });
  const now = Date.now();
  // The scans below are dated before the adds: the account's own history of its names starts earlier.
  await h.db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateMany({ account_id: a.accountId }, { $set: { first_seen: new Date(now - 30 * 24 * HOUR) } });
  const scan = (domain: string, at: Date, fields: Parameters<typeof outcome>[1]) => storeScan(h.db, domain, slotOf(domain, at, INTERVAL_S), outcome(at, fields), { intervalS: INTERVAL_S, now: at });
  await scan('alpha.example.test', new Date(now - 3 * 24 * HOUR), { dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' });
  await scan('alpha.example.test', new Date(now - HOUR), {});
  await scan('beta.example.test', new Date(now - 2 * HOUR), { email_gateway: 'Microsoft 365', dmarc: null, dmarc_policy_p: null });
  await scan('other.example.test', new Date(now - HOUR), {});
  await h.db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name).insertOne({
    _id: 'alpha.example.test', domain_name: 'alpha.example.test', registrar: 'Example Registrar', name_servers: 'ns1.dns.test', registrant_name: null, registrant_org: 'Alpha', registrant_country: 'DE', registrant_state: null,
    contact_email: null, registrar_abuse_email: null, registrar_abuse_phone: null, dnssec_status: 'unsigned', whois_status: 'active', whois_server: null,
    registration_date: new Date('2010-01-01T00:00:00Z'), expiry_date: new Date('2030-01-01T00:00:00Z'), updated_date: null, privacy_enabled: false, domain_statuses: [],
    ip_geolocation: {}, fetched_at: new Date(now - HOUR), next_fetch_at: new Date(now + 24 * HOUR),
  });
  client = await connect(a.key);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
});

describe('discovery through the SDK client', () => {
  it('lists every tool (none destructive), prompt, resource and the template', async () => {
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const t of tools) expect(t.annotations?.destructiveHint ?? false).toBe(false);
    expect(tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name).sort()).toEqual(['add_domains', 'queue_csv_export']);
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual([...MCP_PROMPT_NAMES].sort());
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toEqual(expect.arrayContaining([MCP_RESOURCE_URIS.domains, MCP_RESOURCE_URIS.summary, 'portfolio://domain/alpha.example.test']));
    expect(resources).not.toContain('portfolio://domain/other.example.test');
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([MCP_RESOURCE_URIS.domain]);
  });
});

describe('read tools', () => {
  it('list_domains: the account\'s domains with filters and paging', async () => {
    const all = await tool(client, 'list_domains');
    expect(all.result.isError).toBeFalsy();
    expect(all.data.domains.map((d: Json) => d.domain)).toEqual(['alpha.example.test', 'beta.example.test', 'gamma.example.test']);
    expect(all.data.total_count).toBe(3);
    expect(all.text).toContain('3 domains match');
    const page = await tool(client, 'list_domains', { limit: 2, offset: 0 });
    expect(page.data).toMatchObject({ total_count: 3, limit: 2, offset: 0, next_offset: 2 });
    expect((await tool(client, 'list_domains', { limit: 2, offset: 2 })).data.next_offset).toBeUndefined();
    expect((await tool(client, 'list_domains', { email_gateway: 'Microsoft 365' })).data.domains.map((d: Json) => d.domain)).toEqual(['beta.example.test']);
    expect((await tool(client, 'list_domains', { email_gateway: 'microsoft_365' })).data.domains.map((d: Json) => d.domain)).toEqual(['beta.example.test']);
    expect((await tool(client, 'list_domains', { dmarc_status: 'missing' })).data.domains.map((d: Json) => d.domain)).toEqual(['beta.example.test', 'gamma.example.test']);
    const bad = await tool(client, 'list_domains', { limit: 100_000 });
    expect(bad.result.isError).toBe(true);
  });

  it('get_domain, get_scan_results, get_registration_data, get_change_history by name or id', async () => {
    const byName = await tool(client, 'get_domain', { domain: 'ALPHA.example.test' });
    expect(byName.data).toMatchObject({ id: ids.alpha, domain: 'alpha.example.test', status: 'active', scan_count: 2 });
    expect(byName.data.whois.registrar).toBe('Example Registrar');
    expect((await tool(client, 'get_domain', { domain: String(ids.beta) })).data.domain).toBe('beta.example.test');
    const scan = await tool(client, 'get_scan_results', { domain: 'beta.example.test' });
    expect(scan.data.scan_result).toMatchObject({ email_gateway: 'Microsoft 365', dmarc_policy_p: null });
    expect((await tool(client, 'get_scan_results', { domain: 'gamma.example.test' })).data.scan_result).toBeNull();
    const whois = await tool(client, 'get_registration_data', { domain: 'alpha.example.test' });
    expect(whois.data.whois).toMatchObject({ registrar: 'Example Registrar', expiry_date: '2030-01-01T00:00:00.000Z' });
    expect(whois.text).toContain('Example Registrar');
    const pending = await tool(client, 'get_registration_data', { domain: 'beta.example.test' });
    expect(pending.data.whois).toMatchObject({ whois_status: 'pending', lookup_status: 'pending', next_fetch_at: null });
    expect(pending.text).toContain('not been looked up');
    const history = await tool(client, 'get_change_history', { domain: 'alpha.example.test' });
    expect(history.data.changes.length).toBeGreaterThan(0);
    expect(history.data.changes.map((c: Json) => c.field_name)).toContain('dmarc_policy_p');
    expect(history.data.total_count).toBe(history.data.changes.length);
  });

  it('get_dashboard_summary: the REST summary of this account', async () => {
    const s = await tool(client, 'get_dashboard_summary');
    const rest = await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key });
    expect(s.data).toEqual(rest.body.data);
    expect(s.data.total_domains).toBe(3);
  });

  it('unknown domains and bad names are tool errors with the API\'s codes', async () => {
    const unknown = await tool(client, 'get_domain', { domain: 'nowhere.example.test' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toMatch(/^not_found: /);
    expect(JSON.parse((unknown.result.content[1] as { text: string }).text)).toEqual(errorEnvelope('not_found'));
    expect((await tool(client, 'get_scan_results', { domain: 'http://x/' })).text).toMatch(/^validation_error: /);
    expect((await tool(client, 'get_change_history', { domain: '999999' })).text).toMatch(/^not_found: /);
  });
});

describe('safe writes', () => {
  it('add_domains answers per name and queues priority scans for the new ones', async () => {
    const r = await tool(client, 'add_domains', { domains: ['delta.example.test', 'alpha.example.test', '192.0.2.1'] });
    expect(r.data).toMatchObject({ added: 1, already_monitored: 1, invalid: 1 });
    expect(r.data.results.map((x: Json) => x.result)).toEqual(['added', 'already_monitored', 'invalid']);
    expect(r.text).toContain('192.0.2.1:');
    expect(h.scanRequests).toContainEqual(['delta.example.test']);
    expect((await tool(client, 'list_domains')).data.total_count).toBe(4);
  });

  it('queue_csv_export queues a csv export of this account with the columns and filters given', async () => {
    const r = await tool(client, 'queue_csv_export', { columns: ['domain', 'email_gateway'], filters: { dmarc_policy: 'missing' } });
    expect(r.result.isError).toBeFalsy();
    expect(r.data).toMatchObject({ task_id: expect.stringMatching(/^exp_/), status: 'queued' });
    const doc = await h.db.collection(COLLECTIONS.portfolioExports.name).findOne({ _id: r.data.task_id });
    expect(doc).toMatchObject({ account_id: a.accountId, export_type: 'csv', status: 'queued' });
    const bad = await tool(client, 'queue_csv_export', { columns: ['no_such_column'] });
    expect(bad.text).toMatch(/^validation_error: /);
  });
});

describe('prompts and resources', () => {
  it('each prompt is a step-by-step instruction naming the tools', async () => {
    const audit = await client.getPrompt({ name: 'audit_domain', arguments: { domain: 'alpha.example.test' } });
    const auditText = (audit.messages[0]!.content as { text: string }).text;
    expect(auditText).toContain('get_domain with domain "alpha.example.test"');
    expect(auditText).toContain('get_registration_data');
    const triage = await client.getPrompt({ name: 'triage_recent_changes', arguments: {} });
    expect((triage.messages[0]!.content as { text: string }).text).toContain('get_dashboard_summary');
    const compare = await client.getPrompt({ name: 'compare_spf_dmarc', arguments: { domains: 'alpha.example.test, beta.example.test' } });
    expect((compare.messages[0]!.content as { text: string }).text).toContain('alpha.example.test, beta.example.test');
  });

  it('reads the domain list, the summary and one domain by name', async () => {
    const list = await resource(client, MCP_RESOURCE_URIS.domains);
    expect(list.domains.map((d: Json) => d.domain)).toContain('alpha.example.test');
    expect(list.total_count).toBe(list.domains.length);
    expect((await resource(client, MCP_RESOURCE_URIS.summary)).total_domains).toBe(list.total_count);
    expect(await resource(client, 'portfolio://domain/alpha.example.test')).toMatchObject({ id: ids.alpha, domain: 'alpha.example.test' });
  });
});

describe('isolation', () => {
  it('another account sees none of these domains, by name, id, resource or summary', async () => {
    const other = await connect(b.key);
    try {
      expect((await tool(other, 'list_domains')).data.domains.map((d: Json) => d.domain)).toEqual(['other.example.test']);
      // Ids are per account: B holds id 1 (its own domain); A's id 3 is not B's.
      for (const ref of ['alpha.example.test', String(ids.gamma)]) {
        for (const name of ['get_domain', 'get_scan_results', 'get_registration_data', 'get_change_history']) {
          const r = await tool(other, name, { domain: ref });
          expect(r.result.isError).toBe(true);
          expect(r.text).toMatch(/^not_found: /);
        }
      }
      await expect(other.readResource({ uri: 'portfolio://domain/alpha.example.test' })).rejects.toThrow(/not monitored/);
      await expect(other.readResource({ uri: 'portfolio://domain/%E0%A4%A' })).rejects.toThrow(/not a valid percent-encoded name/);
      expect((await tool(other, 'get_dashboard_summary')).data.total_domains).toBe(1);
      expect((await resource(other, MCP_RESOURCE_URIS.domains)).domains.map((d: Json) => d.domain)).toEqual(['other.example.test']);
    } finally {
      await other.close();
    }
  });
});

describe('the HTTP edges of /mcp', () => {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  it('no key, a wrong key or another service\'s key: 401 in the envelope with the Bearer challenge of the connector', async () => {
    const challenge = `Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`;
    const none = await rpc(undefined, list);
    expect(none.status).toBe(401);
    expect(none.body).toEqual(errorEnvelope('authentication_required'));
    expect(none.headers.get('www-authenticate')).toBe(challenge);
    // A wrong key; a verification key; a verification API's OAuth token (its own prefix and collection); an unknown token of ours.
    for (const key of ['svc_live_' + 'A'.repeat(40), 'dv_live_abc_def', `dv_oat_${'a'.repeat(43)}`, 'svc_oat_nope']) {
      const r = await rpc(key, list);
      expect(r.status).toBe(401);
      expect(r.body).toEqual(errorEnvelope('invalid_api_key'));
      expect(r.headers.get('www-authenticate')).toBe(`${challenge}, error="invalid_token"`);
    }
  });

  it('a plan without API access: 403', async () => {
    const c = await h.account(null);
    const r = await rpc(c.key, list);
    expect(r.status).toBe(403);
    expect(r.body).toEqual(errorEnvelope('api_access_not_included'));
  });

  it('each call counts against the key\'s per-minute limit shared with REST; over it 429 with Retry-After', async () => {
    const d = await h.account('enterprise');
    const before = Number((await h.call('GET', '/api/v1/', { key: d.key })).headers.get('x-ratelimit-remaining'));
    const first = await rpc(d.key, list);
    expect(first.status).toBe(200);
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    expect(first.headers.get('x-api-quota-used')).toBe('2');
    const key = await h.db.collection<PortfolioKeyDoc>(COLLECTIONS.portfolioApiKeys.name).findOne({ account_id: d.accountId });
    const limits = new ApiLimits(h.redis, h.redisPrefix);
    const plan = PORTFOLIO_PLANS.enterprise;
    for (let i = Number(first.headers.get('x-ratelimit-remaining')); i > 0; i--) await limits.take(key!._id, d.accountId, plan);
    const over = await rpc(d.key, list);
    expect(over.status).toBe(429);
    expect(over.body).toEqual(errorEnvelope('rate_limit_exceeded'));
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.body.errors[0].detail).toContain(`${plan.requestsPerMinute} requests per minute`);
  });

  it('a batch is refused; GET and DELETE answer 405; a non-JSON body 400, all in the envelope', async () => {
    const batch = await rpc(a.key, [list, { ...list, id: 2 }]);
    expect(batch.status).toBe(400);
    expect(batch.body).toEqual(errorEnvelope('invalid_request'));
    for (const method of ['GET', 'DELETE']) {
      const r = await h.call(method, '/mcp', { key: a.key });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.body).toEqual(errorEnvelope('method_not_allowed'));
    }
    const text = await h.call('POST', '/mcp', { key: a.key, raw: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    expect(text.body).toEqual(errorEnvelope('invalid_request'));
  });
});
