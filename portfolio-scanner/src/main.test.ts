// The scanner as a process (main.ts): role `worker` runs the planner and the workers, so a domain
// added to a portfolio is scanned with no request; /metrics carries the scan and queue metrics;
// SIGTERM drains and exits 0. Role `api` scans nothing and serves the API and the MCP connector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type CorpusDomainDoc } from '@dv/contracts';
import { startServiceProcess } from '@dv/stack';
import { addDomains } from './store/index.ts';
import { startScanHarness, until, type ScanHarness } from './worker/testing/harness.ts';

let h: ScanHarness;

beforeAll(async () => {
  h = await startScanHarness('main');
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe('portfolio-scanner process', () => {
  it('role api scans nothing; role worker plans and scans a domain just added, reports its metrics and drains on SIGTERM', async () => {
    const env = { ...h.env, LOG_LEVEL: 'warn', PORTFOLIO_PLAN_TICK_MS: '200', PORTFOLIO_PLAN_DELAY_MS: '0', PORTFOLIO_PLANNER_LEASE_MS: '1000', PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: '2000' };
    const logDir = h.logDir;
    const corpus = h.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    const api = await startServiceProcess('portfolio-scanner', { env: { ...env, PORTFOLIO_ROLE: 'api' }, logDir });
    await addDomains(h.db, 'acc_proc', ['acme.test'], { intervalS: 86_400 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await corpus.findOne({ _id: 'acme.test' }))?.scan_count).toBe(0);
    expect(await (await fetch(`${api.url}/metrics`)).text()).toContain('portfolio_domains_overdue');
    // The REST API is mounted on role api: no key is the spec's 401 in the envelope.
    const unauth = await fetch(`${api.url}/api/v1/domains/`);
    expect(unauth.status).toBe(401);
    expect(await unauth.json()).toMatchObject({ status: 'error', data: null, errors: [{ code: 'authentication_required' }] });
    // So is the MCP connector, whose OAuth issuer is PUBLIC_BASE_URL (the launcher's: this address).
    const mcp = await fetch(`${api.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=".+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    expect(((await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] }).scopes_supported).toEqual(['mcp']);
    expect(await api.stop(5_000)).toBe(0);

    const worker = await startServiceProcess('portfolio-scanner', { env: { ...env, PORTFOLIO_ROLE: 'worker' }, logDir });
    await until(async () => (await corpus.findOne({ _id: 'acme.test' }))?.scan_count === 1, 15_000, 'scanned by the process');
    // Counted just after the store's commit (and the sweep date), so read until it shows.
    const metrics = await until(async () => {
      const text = await (await fetch(`${worker.url}/metrics`)).text();
      return /portfolio_scans_total\{[^}]*outcome="stored"[^}]*\} 1/.test(text) ? text : null;
    }, 3_000, 'stored scan counted');
    expect(metrics).toContain('portfolio_scan_duration_seconds_count');
    expect(metrics).toContain('portfolio_queue_lag_seconds{');
    expect(await worker.stop(8_000)).toBe(0);
  }, 60_000);
});
