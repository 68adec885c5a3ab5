import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '@dv/accounts';
import { ApiError } from '@dv/runtime';
import { fetchList } from '../services/fetch-list.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';

// The MCP surface through the SDK's own client over Streamable HTTP, against the in-process
// gateway and the fake scheduler (sandbox answers): the ten tools listed and called, results as
// structuredContent plus text, errors as tool errors, auth refused at the HTTP level.

let h: GatewayHarness;
let a: TestAccount;
let files: Server;
let filesUrl: string;

const CSV = 'email,name\nlist.one@example.com,One\nlist.invalid@example.com,Two\nLIST.ONE@example.com,Dup\n';

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'mcp', scheduler: true, env: { MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: 'true' } });
  a = await h.account();
  files = createServer((req, res) => {
    if (req.url === '/list.csv') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(CSV);
    } else if (req.url === '/moved.csv') {
      res.writeHead(302, { location: '/list.csv' });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
  await h?.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;
const text = (r: unknown) => ((r as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('MCP server', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(a.sandbox);
  });
  afterAll(async () => client?.close());

  it('lists the ten tools with agent-facing descriptions, and the prompt', async () => {
    expect(client.getServerVersion()?.name).toBe('email-verification');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['cancel_job', 'get_account', 'get_job', 'get_job_results', 'get_service_status', 'list_jobs', 'lookup_email', 'verify_email', 'verify_emails', 'verify_list_from_url'].sort(),
    );
    for (const t of tools) expect(t.description?.length).toBeGreaterThan(80);
    expect(Object.keys(tools.find((t) => t.name === 'verify_email')?.inputSchema.properties ?? {})).toEqual(['email', 'max_age_days', 'force_fresh']);
    expect(tools.find((t) => t.name === 'get_job_results')?.inputSchema.properties?.limit).toMatchObject({ maximum: 200 });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('clean_prospect_list');
    const p = await client.getPrompt({ name: 'clean_prospect_list', arguments: { list: 'https://files.example/leads.csv' } });
    expect(JSON.stringify(p.messages)).toContain('verify_list_from_url');
  });

  it('verify_email answers with the result, then lookup_email finds it', async () => {
    const r = await client.callTool({ name: 'verify_email', arguments: { email: 'mcp.catchall@example.com' } });
    expect(r.isError ?? false).toBe(false);
    expect(structured(r).result).toMatchObject({ email: 'mcp.catchall@example.com', status: 'risky', sub_status: 'catch_all' });
    expect(text(r)).toContain('risky/catch_all');
    let l = await client.callTool({ name: 'lookup_email', arguments: { email: 'mcp.catchall@example.com' } });
    for (let i = 0; i < 20 && l.isError; i++) {
      await new Promise((r) => setTimeout(r, 100));
      l = await client.callTool({ name: 'lookup_email', arguments: { email: 'mcp.catchall@example.com' } });
    }
    expect(l.isError ?? false, text(l)).toBe(false);
    expect(structured(l)).toMatchObject({ result: { status: 'risky' }, job_id: expect.stringMatching(/^job_/) });
  });

  it('verify_emails returns the finished job with its results; get_job, get_job_results and list_jobs read it', async () => {
    const r = await client.callTool({ name: 'verify_emails', arguments: { emails: ['a.ok@example.com', 'b.invalid@example.com', 'A.OK@example.com', 'not-an-address'], label: 'mcp list' } });
    expect(r.isError ?? false).toBe(false);
    const s = structured(r);
    expect(s).toMatchObject({ status: 'completed', accepted: 2, duplicates_removed: 1, invalid_total: 1, label: 'mcp list', credits_charged: 0 });
    expect((s.results as unknown[]).length).toBe(2);
    const jobId = s.job_id as string;

    const g = await client.callTool({ name: 'get_job', arguments: { job_id: jobId, wait: 1 } });
    expect(structured(g)).toMatchObject({ job_id: jobId, status: 'completed', done: 2, total: 2 });
    expect(text(g)).toContain('completed');

    const p1 = await client.callTool({ name: 'get_job_results', arguments: { job_id: jobId, limit: 1 } });
    expect((structured(p1).results as unknown[]).length).toBe(1);
    expect(structured(p1).next_cursor).toEqual(expect.any(String));
    const p2 = await client.callTool({ name: 'get_job_results', arguments: { job_id: jobId, limit: 1, cursor: structured(p1).next_cursor as string } });
    expect(structured(p2).next_cursor).toBeNull();
    const drops = await client.callTool({ name: 'get_job_results', arguments: { job_id: jobId, decision: 'drop' } });
    expect(structured(drops).results).toEqual([expect.objectContaining({ email: 'b.invalid@example.com' })]);

    const list = await client.callTool({ name: 'list_jobs', arguments: { limit: 5 } });
    expect((structured(list).jobs as { job_id: string }[]).map((j) => j.job_id)).toContain(jobId);
  });

  it('a held job comes back as a job_id to poll, and cancel_job cancels it', async () => {
    h.scheduler!.hold(true);
    try {
      const [r, single] = await Promise.all([
        client.callTool({ name: 'verify_emails', arguments: { emails: ['held.one@example.com', 'held.two@example.com'] } }),
        client.callTool({ name: 'verify_email', arguments: { email: 'held.single@example.com' } }),
      ]);
      expect(single.isError ?? false).toBe(false);
      expect(structured(single)).toMatchObject({ job_id: expect.stringMatching(/^job_/), status: 'running', status_url: expect.any(String) });
      expect(text(single)).toContain('get_job');
      expect(r.isError ?? false).toBe(false);
      expect(structured(r)).toMatchObject({ status: 'running', job_id: expect.stringMatching(/^job_/) });
      expect(text(r)).toContain('get_job');
      const c = await client.callTool({ name: 'cancel_job', arguments: { job_id: structured(r).job_id as string } });
      expect(c.isError ?? false).toBe(false);
      expect(structured(c)).toMatchObject({ status: 'canceled' });
      const again = await client.callTool({ name: 'cancel_job', arguments: { job_id: structured(r).job_id as string } });
      expect(again.isError ?? false).toBe(false);
      expect(structured(again)).toMatchObject({ status: 'canceled' });
    } finally {
      h.scheduler!.hold(false);
    }
  }, 40_000);

  it('get_account and get_service_status', async () => {
    const acc = await client.callTool({ name: 'get_account', arguments: {} });
    expect(acc.isError ?? false).toBe(false);
    expect(structured(acc)).toMatchObject({ plan: 'business', key: { mode: 'sandbox' } });
    expect(structured(acc).webhook_secret).toBeUndefined();
    const st = await client.callTool({ name: 'get_service_status', arguments: {} });
    expect(st.isError ?? false).toBe(false);
    expect(structured(st)).toMatchObject({ load: expect.any(String), queue: expect.any(Object) });
  });

  it('errors are tool errors with the problem code', async () => {
    const bad = await client.callTool({ name: 'get_job', arguments: { job_id: 'nope' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/not_found|validation_error/);
    const missing = await client.callTool({ name: 'get_job', arguments: { job_id: 'job_01jb2x7k3m9q8r5t6v7w8x9y0z' } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('not_found');
    const big = await client.callTool({ name: 'verify_emails', arguments: { emails: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`) } });
    expect(big.isError).toBe(true);
    expect(text(big)).toContain('job_too_large');
    const lookup = await client.callTool({ name: 'lookup_email', arguments: { email: 'never.checked@example.com' } });
    expect(lookup.isError).toBe(true);
    expect(text(lookup)).toContain('not_found');
    const done = await client.callTool({ name: 'list_jobs', arguments: { status: 'completed', limit: 1 } });
    const doneId = (structured(done).jobs as { job_id: string }[])[0]!.job_id;
    const conflict = await client.callTool({ name: 'cancel_job', arguments: { job_id: doneId } });
    expect(conflict.isError).toBe(true);
    expect(text(conflict)).toContain('conflict');
    const over = await client.callTool({ name: 'get_job_results', arguments: { job_id: 'job_01jb2x7k3m9q8r5t6v7w8x9y0z', limit: 201 } });
    expect(over.isError).toBe(true);
  });

  it('verify_list_from_url reads a CSV like an upload (loopback allowed by the test-only flag)', async () => {
    const r = await client.callTool({ name: 'verify_list_from_url', arguments: { url: `${filesUrl}/list.csv`, label: 'from url' } });
    expect(r.isError ?? false).toBe(false);
    expect(structured(r)).toMatchObject({ status: 'completed', accepted: 2, duplicates_removed: 1, label: 'from url' });
    expect((structured(r).results as { meta?: Record<string, string> }[])[0]?.meta).toMatchObject({ name: expect.any(String) });
  });

  it('verify_list_from_url refuses http, private targets, redirects and missing files', async () => {
    for (const url of ['http://93.184.216.34/list.csv', 'https://10.0.0.1/list.csv', 'https://169.254.169.254/latest/meta-data', 'http://169.254.169.254/', 'https://[::ffff:10.0.0.1]/x.csv', 'ftp://example.com/x.csv']) {
      const r = await client.callTool({ name: 'verify_list_from_url', arguments: { url } });
      expect(r.isError, url).toBe(true);
      expect(text(r), url).toContain('invalid_target');
    }
    const moved = await client.callTool({ name: 'verify_list_from_url', arguments: { url: `${filesUrl}/moved.csv` } });
    expect(moved.isError).toBe(true);
    expect(text(moved)).toContain('redirects are not followed');
    const gone = await client.callTool({ name: 'verify_list_from_url', arguments: { url: `${filesUrl}/missing.csv` } });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toContain('bad_gateway');
  });
});

describe('fetchList guard without the test flag', () => {
  it('refuses loopback and private addresses, and http', async () => {
    for (const url of [`${filesUrl}/list.csv`, 'https://127.0.0.1/list.csv', 'https://10.0.0.1/list.csv', 'https://169.254.169.254/', 'http://93.184.216.34/list.csv']) {
      await expect(fetchList(url, { maxBytes: 1024, timeoutMs: 1000 }), url).rejects.toSatisfy((e: unknown) => e instanceof ApiError && e.code === 'invalid_target');
    }
  });

  it('caps the size', async () => {
    const got = await fetchList(`${filesUrl}/list.csv`, { maxBytes: 10, timeoutMs: 1000, allowHttpLoopback: true });
    await expect(
      (async () => {
        for await (const _chunk of got.body) {
          // drain
        }
      })(),
    ).rejects.toSatisfy((e: unknown) => e instanceof ApiError && e.code === 'file_too_large');
  });
});

describe('MCP over HTTP', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
  const headers = { accept: 'application/json, text/event-stream' };

  it('401 problem+json without a key or with a bad or revoked key, 403 for a plan without API access', async () => {
    const none = await call(h.url, '/mcp', { body: init, headers });
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
    expect(none.body.code).toBe('missing_api_key');
    const bad = await call(h.url, '/mcp', { body: init, headers, key: 'dv_live_abcdefghjk_' + 'A'.repeat(32) });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('invalid_api_key');
    await expect(connect('dv_test_abcdefghjk_' + 'A'.repeat(32))).rejects.toThrow();

    const b = await h.account();
    expect((await call(h.url, '/mcp', { body: init, headers, key: b.sandbox })).status).toBe(200);
    await revokeApiKey(h.db, b.sandbox.split('_').slice(0, 3).join('_'));
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      status = (await call(h.url, '/mcp', { body: init, headers, key: b.sandbox })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);

    const growth = await h.account({ plan: 'growth' });
    const g = await call(h.url, '/mcp', { body: init, headers, key: growth.sandbox });
    expect(g.status).toBe(403);
    expect(g.body.code).toBe('plan_not_entitled');
  });

  it('GET and DELETE answer 405 problem+json', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await call(h.url, '/mcp', { method, key: a.sandbox, headers });
      expect(r.status).toBe(405);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('method_not_allowed');
    }
  });
});
