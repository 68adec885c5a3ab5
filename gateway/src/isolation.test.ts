import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, newId, type JobDoc } from '@dv/contracts';
import { signDownloadUrl } from '@dv/notify';
import { gatewayRoutes } from './app.ts';
import { call, startGatewayHarness, TEST_DOWNLOAD_SECRET, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Tenant isolation, generated from the route table: account B must learn nothing about account
// A's jobs. Every route of gatewayRoutes() is classified below; a route added later fails the
// first test until it is classified (and, when it names a per-account resource, probed here).
// The same over MCP for every tool that takes a job id.

let h: GatewayHarness;
let a: TestAccount;
let b: TestAccount;
/** A's finished job, A's job that B tries to cancel, and an id that names no job at all. */
let done: string;
let other: string;
const missing = newId('job');

/** Routes whose path names a per-account resource: how B probes A's. `id` is the job id to use. */
type Probe = (id: string) => Promise<{ status: number; body: { code?: string } }>;
const PROBES: Record<string, Probe> = {
  'get /v1/jobs/{job_id}': (id) => call(h.url, `/v1/jobs/${id}`, { key: b.sandbox }),
  'delete /v1/jobs/{job_id}': (id) => call(h.url, `/v1/jobs/${id}`, { key: b.sandbox, method: 'DELETE' }),
  'get /v1/jobs/{job_id}/results': (id) => call(h.url, `/v1/jobs/${id}/results`, { key: b.sandbox }),
};

/**
 * Signed, key-less routes: the signature is the credential (it names the job), so a key adds
 * nothing. B cannot make one for A's job: a link signed for B's job, moved to A's id, is refused
 * before any lookup, exactly as for a job that does not exist (no existence oracle).
 */
const SIGNED = new Set(['get /v1/downloads/{job_id}.csv', 'get /v1/downloads/{job_id}.ndjson']);

/** Account-scoped reads without a resource in the path: B's answer must not contain A's jobs. */
const LISTS: Record<string, () => Promise<unknown>> = {
  'get /v1/jobs': async () => (await call(h.url, '/v1/jobs?limit=100', { key: b.sandbox })).body,
  'get /v1/events': async () => (await call(h.url, '/v1/events?after=0&limit=500', { key: b.sandbox })).body,
  'get /v1/lookup': async () => (await call(h.url, '/v1/lookup?email=isolation.a%40example.com', { key: b.sandbox })).body,
  'get /v1/account': async () => (await call(h.url, '/v1/account', { key: b.sandbox })).body,
};

/** Routes that touch no other account's data (they create the caller's own, or are public). */
const NOT_SCOPED = new Set(['get /v1/health', 'get /v1/openapi.json', 'get /v1/status', 'post /v1/verify', 'post /v1/jobs']);

const keyOf = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'isolation', scheduler: true });
  a = await h.account();
  b = await h.account();
  const first = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['isolation.a@example.com', 'isolation.b@example.com'], label: 'A private' } });
  expect(first.status).toBe(202);
  done = first.body.job_id;
  const second = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['isolation.c@example.com'] } });
  other = second.body.job_id;
  // Wait for A's first job to finish, so it has results, an event and a lookup entry.
  for (let i = 0; i < 100; i++) {
    const job = await call(h.url, `/v1/jobs/${done}`, { key: a.sandbox });
    if (job.body.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await call(h.url, `/v1/jobs/${done}`, { key: a.sandbox })).body.status).toBe('completed');
});
afterAll(async () => h?.close());

describe('the route table is fully classified', () => {
  it('every route is probed, signed, a scoped list or not scoped, and every route with a path parameter is probed or signed', () => {
    const routes = gatewayRoutes();
    const classified = new Set([...Object.keys(PROBES), ...SIGNED, ...Object.keys(LISTS), ...NOT_SCOPED]);
    const unclassified = routes.map(keyOf).filter((k) => !classified.has(k));
    expect(unclassified, 'classify new routes in isolation.test.ts').toEqual([]);
    const withParams = routes.filter((r) => /\{[^}]+\}/.test(r.path)).map(keyOf);
    expect(withParams.filter((k) => !(k in PROBES) && !SIGNED.has(k)), 'a route naming a resource needs a probe').toEqual([]);
    // No stale entries either: every classified route still exists.
    const existing = new Set(routes.map(keyOf));
    expect([...classified].filter((k) => !existing.has(k))).toEqual([]);
  });
});

describe("B gets 404 not_found for A's job on every job-scoped route", () => {
  for (const [route, probe] of Object.entries(PROBES)) {
    it(route, async () => {
      for (const id of [done, other]) {
        const r = await probe(id);
        expect(r.status, `${route} ${id}`).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
      // The same answer as for a job that does not exist (no existence oracle).
      const none = await probe(missing);
      expect(none.status).toBe(404);
      expect(none.body.code).toBe('not_found');
    });
  }

  it("B's cancel changed nothing of A's job", async () => {
    const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: other });
    expect(job?.status).not.toBe('canceled');
    expect(job?.account_id).toBe(a.account._id);
  });

  it('results in every format are refused', async () => {
    for (const format of ['json', 'ndjson', 'csv']) {
      const r = await call(h.url, `/v1/jobs/${done}/results?format=${format}`, { key: b.sandbox });
      expect(r.status, format).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
  });
});

describe('signed downloads', () => {
  it("B cannot open A's CSV: B's own link moved to A's job, an unsigned request with B's key, and a forged link are 403 like a missing job", async () => {
    const bJob = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['isolation.b.own@example.com'] } });
    const bLink = new URL((await call(h.url, `/v1/jobs/${bJob.body.job_id}`, { key: b.sandbox })).body.download_url as string);
    for (const target of [done, missing]) {
      const moved = await call(h.url, `/v1/downloads/${target}.csv${bLink.search}`, { key: b.sandbox });
      expect(moved.status, target).toBe(403);
      expect(moved.body.code).toBe('forbidden');
      const unsigned = await call(h.url, `/v1/downloads/${target}.csv`, { key: b.sandbox });
      expect(unsigned.status).toBe(403);
      const forged = new URL(signDownloadUrl(h.url, target, 'not-the-server-secret-not-the-server-secret', Math.floor(Date.now() / 1000) + 600));
      expect((await call(h.url, `/v1/downloads/${target}.csv${forged.search}`, { key: b.sandbox })).status).toBe(403);
      // The NDJSON form, of every row or of a part: B's own link moved to A's job is refused the same way.
      for (const variant of [{ format: 'ndjson' as const }, { format: 'ndjson' as const, decision: 'send' as const }]) {
        const own = new URL(signDownloadUrl(h.url, bJob.body.job_id as string, TEST_DOWNLOAD_SECRET, Math.floor(Date.now() / 1000) + 600, variant));
        expect((await fetch(`${h.url}${own.pathname}${own.search}`)).status).toBe(200);
        expect((await call(h.url, `/v1/downloads/${target}.ndjson${own.search}`, { key: b.sandbox })).status).toBe(403);
      }
    }
  });

  it("A's own link opens A's CSV, and only A's: the signature names the job", async () => {
    const link = new URL((await call(h.url, `/v1/jobs/${done}`, { key: a.sandbox })).body.download_url as string);
    const res = await fetch(`${h.url}${link.pathname}${link.search}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('isolation.a@example.com');
    expect((await call(h.url, `/v1/downloads/${other}.csv${link.search}`, { key: b.sandbox })).status).toBe(403);
  });
});

describe("B's account-scoped reads never show A's jobs", () => {
  for (const [route, read] of Object.entries(LISTS)) {
    it(route, async () => {
      const text = JSON.stringify(await read());
      for (const leak of [done, other, a.account._id, 'A private', 'isolation.c@example.com']) expect(text, `${route} shows ${leak}`).not.toContain(leak);
    });
  }

  it('(A sees its own, so the reads above could have failed)', async () => {
    expect(JSON.stringify((await call(h.url, '/v1/jobs?limit=100', { key: a.sandbox })).body)).toContain(done);
    expect(JSON.stringify((await call(h.url, '/v1/events?after=0', { key: a.sandbox })).body)).toContain(done);
  });
});

describe('over MCP', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'isolation', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${b.sandbox}` } } }));
  });
  afterAll(async () => client?.close());

  /** Arguments for each tool that takes a job id; a new such tool fails the first test until added. */
  const MCP_PROBES: Record<string, (id: string) => Record<string, unknown>> = {
    get_job: (id) => ({ job_id: id }),
    get_job_results: (id) => ({ job_id: id }),
    cancel_job: (id) => ({ job_id: id }),
  };

  it('every tool that takes a job id is probed', async () => {
    const { tools } = await client.listTools();
    const withJobId = tools.filter((t) => Object.keys((t.inputSchema as { properties?: Record<string, unknown> }).properties ?? {}).some((p) => /job/.test(p))).map((t) => t.name);
    expect(withJobId.sort()).toEqual(Object.keys(MCP_PROBES).sort());
  });

  it("B's tools answer not_found for A's job, as for a missing one", async () => {
    for (const [name, args] of Object.entries(MCP_PROBES)) {
      for (const id of [done, other, missing]) {
        const r = (await client.callTool({ name, arguments: args(id) })) as CallToolResult;
        expect(r.isError, `${name} ${id}`).toBe(true);
        expect((r.content[0] as { text: string }).text).toMatch(/^not_found: /);
      }
    }
    const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: other });
    expect(job?.status).not.toBe('canceled');
  });

  it("list_jobs shows none of A's jobs", async () => {
    const r = (await client.callTool({ name: 'list_jobs', arguments: {} })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r)).not.toContain(done);
    expect(JSON.stringify(r)).not.toContain(other);
  });
});
