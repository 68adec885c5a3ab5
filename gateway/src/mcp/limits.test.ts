import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';
import { jsonRpcRequests } from './batch.ts';

// MCP cannot multiply a request: every JSON-RPC request of a batch counts against the per-minute
// limit, and verify_list_from_url takes a download place and the job's slot before it fetches a
// byte, giving both back when the download fails.

let h: GatewayHarness;
let files: Server;
let filesUrl: string;
/** Paths the file server was asked for, in order. */
const asked: string[] = [];
/** Held responses: answered when the test lets them go. */
const held: Array<() => void> = [];

const CSV = 'email\nurl.one@example.com\nurl.two@example.com\n';

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'mcplim', scheduler: true, env: { MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: 'true' } });
  files = createServer((req, res) => {
    asked.push(req.url ?? '');
    const answer = () => {
      if (req.url?.startsWith('/fail')) {
        res.writeHead(500);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.end(CSV);
      }
    };
    if (req.url?.includes('held')) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  for (const answer of held) answer();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
  await h?.close();
});

const headers = { accept: 'application/json, text/event-stream' };
const tool = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const mcp = (key: string, body: unknown) => call(h.url, '/mcp', { key, body, headers });
type RpcResult = { id: number; result: { isError?: boolean; content: { text: string }[] } };
const byId = (body: RpcResult[]) => [...body].sort((x, y) => x.id - y.id);

async function until(what: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const slots = (a: TestAccount) => h.redis.zcard(`${h.env.REDIS_KEY_PREFIX}slots:list:${a.account._id}`);
const places = (a: TestAccount) => h.redis.zcard(`${h.env.REDIS_KEY_PREFIX}fetches:${a.account._id}`);

describe('jsonRpcRequests', () => {
  it('counts requests, not notifications, responses or junk', () => {
    expect(jsonRpcRequests(tool(1, 'get_account'))).toBe(1);
    expect(jsonRpcRequests([tool(1, 'a'), tool(2, 'b'), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 3, result: {} }, null, 'x'])).toBe(2);
    expect(jsonRpcRequests({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(0);
    expect(jsonRpcRequests(undefined)).toBe(0);
  });
});

describe('MCP per-minute limit', () => {
  it('a batch of N tool calls counts N requests', async () => {
    const a = await h.account({ limits: { requestsPerMinute: 10 } });
    const first = await mcp(a.sandbox, [1, 2, 3, 4].map((id) => tool(id, 'get_service_status')));
    expect(first.status).toBe(200);
    expect((first.body as RpcResult[]).map((r) => r.result.isError ?? false)).toEqual([false, false, false, false]);
    const second = await mcp(a.sandbox, [5, 6, 7, 8, 9, 10].map((id) => tool(id, 'get_service_status')));
    expect(second.status).toBe(200);
    expect(second.body).toHaveLength(6);
    // 4 + 6 = the whole minute: a single call is now refused.
    const third = await mcp(a.sandbox, tool(11, 'get_service_status'));
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a batch larger than what is left is refused whole (problem+json, nothing runs) and costs one request', async () => {
    const a = await h.account({ limits: { requestsPerMinute: 10 } });
    const before = asked.length;
    const big = await mcp(a.sandbox, Array.from({ length: 11 }, (_, i) => tool(i + 1, 'verify_list_from_url', { url: `${filesUrl}/big-${i}.csv` })));
    expect(big.status).toBe(429);
    expect(big.headers.get('content-type')).toContain('application/problem+json');
    expect(big.body.code).toBe('rate_limited');
    expect(big.body.detail).toContain('11 calls');
    expect(big.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(asked.length).toBe(before);
    // The refused batch took one request of the ten: nine calls still fit.
    const fits = await mcp(a.sandbox, Array.from({ length: 9 }, (_, i) => tool(i + 1, 'get_account')));
    expect(fits.status).toBe(200);
    expect((await mcp(a.sandbox, tool(99, 'get_account'))).status).toBe(429);
  });
});

describe('verify_list_from_url limits', () => {
  it('list downloads beyond the per-account cap are refused with the problem shape, and start no download', async () => {
    const a = await h.account({ limits: { concurrentJobs: 5 } });
    const before = asked.length;
    const batch = mcp(a.sandbox, [1, 2, 3].map((id) => tool(id, 'verify_list_from_url', { url: `${filesUrl}/held-${a.account._id}-${id}.csv` })));
    await until(() => held.length === 2);
    // The third call was refused at once; give it time to (wrongly) start a download.
    await new Promise((r) => setTimeout(r, 300));
    expect(asked.length - before).toBe(2);
    for (const answer of held.splice(0)) answer();
    const res = await batch;
    expect(res.status).toBe(200);
    const [r1, r2, r3] = byId(res.body as RpcResult[]).map((r) => r.result);
    const refused = [r1, r2, r3].filter((r) => r!.isError);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.content[0]!.text).toMatch(/^too_many_active_jobs: .*list downloads.* Retry after \d+ s\.$/);
    const problem = JSON.parse(refused[0]!.content[1]!.text) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 429, code: 'too_many_active_jobs', title: 'Too Many Requests', detail: expect.any(String) });
    expect([r1, r2, r3].filter((r) => !r!.isError)).toHaveLength(2);
    expect(await places(a)).toBe(0);
  }, 40_000);

  it('takes the job slot before downloading and gives it back when the download fails', async () => {
    const a = await h.account({ limits: { concurrentJobs: 1 } });
    const pending = mcp(a.sandbox, tool(1, 'verify_list_from_url', { url: `${filesUrl}/fail-held.csv` }));
    await until(() => held.length === 1);
    // The download has not answered yet, and the account's only slot is already taken.
    expect(await slots(a)).toBe(1);
    expect(await places(a)).toBe(1);
    const rest = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['rest@example.com'] } });
    expect(rest.status).toBe(429);
    expect(rest.body.code).toBe('too_many_active_jobs');
    held.splice(0).forEach((answer) => answer());
    const failed = (await pending).body as RpcResult;
    expect(failed.result.isError).toBe(true);
    expect(failed.result.content[0]!.text).toContain('bad_gateway');
    expect(await slots(a)).toBe(0);
    expect(await places(a)).toBe(0);

    // With the slot taken by a running job, the call is refused before any download starts.
    h.scheduler!.hold(true);
    try {
      const job = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['running@example.com'] } });
      expect(job.status).toBe(202);
      const before = asked.length;
      const refused = (await mcp(a.sandbox, tool(2, 'verify_list_from_url', { url: `${filesUrl}/never.csv` }))).body as RpcResult;
      expect(refused.result.isError).toBe(true);
      expect(refused.result.content[0]!.text).toContain('too_many_active_jobs');
      expect(asked.length).toBe(before);
      expect(await places(a)).toBe(0);
      expect((await call(h.url, `/v1/jobs/${job.body.job_id}`, { method: 'DELETE', key: a.sandbox })).status).toBe(200);
    } finally {
      h.scheduler!.hold(false);
    }

    // A download that works hands its slot to the job it creates.
    const ok = (await mcp(a.sandbox, tool(3, 'verify_list_from_url', { url: `${filesUrl}/list.csv` }))).body as RpcResult & { result: { structuredContent: { job_id: string; accepted: number } } };
    expect(ok.result.isError ?? false).toBe(false);
    expect(ok.result.structuredContent.accepted).toBe(2);
  }, 40_000);
});
