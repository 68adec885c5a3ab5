import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { startHarness, type Harness } from '../api/testing/harness.ts';
import { MCP_TOOL_NAMES } from './index.ts';

// Property: whatever JSON-RPC-shaped or malformed body reaches /mcp with a valid key, the answer is
// never a 5xx, is either the API's error envelope or a JSON-RPC message (result or error), a tool
// error is never an internal one, and the read tools change nothing stored. The writes are left out of the generated calls: random but
// valid names would rightly be added.

let h: Harness;
let key: string;
const READ_TOOLS = MCP_TOOL_NAMES.filter((t) => t !== 'add_domains' && t !== 'queue_csv_export');

beforeAll(async () => {
  h = await startHarness('pmcpfuzz', { connector: true });
  // Premium: 2,000 calls a minute, so the limit does not end the run early.
  ({ key } = await h.account('enterprise_max_premium'));
  await h.call('POST', '/api/v1/domains/', { key, body: { domains: ['fuzz-one.example.test', 'fuzz-two.example.test'] } });
}, 120_000);

afterAll(async () => h?.close());

const value = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constantFrom('fuzz-one.example.test', '1', '-1', '1e309', 'xn--', '../..', 'portfolio://domain/fuzz-one.example.test'));
const args = fc.dictionary(fc.constantFrom('domain', 'limit', 'offset', 'search', 'email_gateway', 'dmarc_status', 'folder_id', 'domains', 'name', 'x'), fc.oneof(value, fc.array(value, { maxLength: 3 })), { maxKeys: 4 });
const method = fc.constantFrom('initialize', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'resources/templates/list', 'ping', 'nope', '');
const params = fc.oneof(
  fc.record({ name: fc.oneof(fc.constantFrom(...READ_TOOLS, 'audit_domain', 'triage_recent_changes', 'compare_spf_dmarc', 'nope'), fc.string({ maxLength: 20 })), arguments: fc.oneof(args, value) }),
  fc.record({ uri: fc.oneof(fc.constantFrom('portfolio://domains', 'portfolio://dashboard/summary', 'portfolio://domain/fuzz-one.example.test', 'portfolio://domain/%00', 'portfolio://domain/'), fc.string({ maxLength: 40 })) }),
  value,
);
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
  value,
  fc.array(value, { maxLength: 2 }),
);
const body = fc.oneof(message.map((m) => JSON.stringify(m)), fc.string({ maxLength: 80 }), fc.constantFrom('{', '[]', '{"jsonrpc":"2.0"', 'null'));

it('never answers 5xx, always the envelope or JSON-RPC, and reads change nothing', async () => {
  const stored = async () => h.db.collection(COLLECTIONS.portfolioDomains.name).countDocuments();
  const before = await stored();
  await fc.assert(
    fc.asyncProperty(body, fc.constantFrom('application/json', 'text/plain'), async (raw, type) => {
      const res = await fetch(`${h.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': type }, body: raw });
      const text = await res.text();
      expect(res.status).toBeLessThan(500);
      if (res.status === 202) return; // a notification: no body
      const parsed = JSON.parse(text) as { status?: string; errors?: unknown[]; jsonrpc?: string; result?: { isError?: boolean; content?: { text?: string }[] } };
      if (res.status >= 400 && parsed.jsonrpc === undefined) expect(parsed).toMatchObject({ status: 'error', data: null, errors: [expect.objectContaining({ code: expect.any(String) })] });
      else expect(parsed.jsonrpc).toBe('2.0');
      // A tool error names what was wrong with the input, never an internal failure.
      if (parsed.result?.isError) expect(parsed.result.content?.[0]?.text ?? '').not.toMatch(/^(internal_error|service_unavailable)/);
    }),
    { numRuns: 400 },
  );
  expect(await stored()).toBe(before);
}, 300_000);
