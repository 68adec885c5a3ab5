import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '@dv/contracts';
import { REPO_ROOT } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { HOSTILE_CASES, startHostileServer, type HostileServer } from '@dv/test-kit/hostile-http';
import { startGatewayHarness, type GatewayHarness } from './testing/harness.ts';

// A gateway process (a real child, so a crash shows as its exit) given list URLs that answer
// hostilely: every MCP verify_list_from_url call ends as a tool error carrying one of the API's
// problem codes, or as a created job, and the process is still up, with its memory bounded, at
// the end. The calls run at once (an account each), so the slow cases cost one list deadline.

let h: GatewayHarness;
let gw: RunningProcess;
let hostile: HostileServer;
let exitCode: number | null | undefined;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'hostile' });
  hostile = await startHostileServer();
  gw = await startServiceProcess('gateway', { env: { ...h.env, MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: 'true', LOG_LEVEL: 'warn' }, logDir: join(REPO_ROOT, '.local', 'gw-test-logs') });
  void gw.exited.then((code) => {
    exitCode = code;
  });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await hostile?.close();
  await h?.close();
});

const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const text = (r: CallToolResult) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

async function listFromUrl(key: string, url: string): Promise<CallToolResult> {
  const client = new Client({ name: 'hostile-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    return (await client.callTool({ name: 'verify_list_from_url', arguments: { url } }, undefined, { timeout: 60_000 })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe('verify_list_from_url against a hostile server', () => {
  it('answers every call with a result or a problem code, and the process lives with bounded memory', async () => {
    const urls = [
      // A malformed escape in the last path segment (the file name) of a URL that answers 200.
      `${hostile.url}/ok/%E0`,
      `${hostile.url}/ok/%`,
      `${hostile.url}/ok/list%FF%FE.csv`,
      ...HOSTILE_CASES.filter((c) => c !== 'ok').map((c) => `${hostile.url}/${c}/list.csv`),
    ];
    const pid = gw.child.pid!;
    const before = rss(pid);
    const results = await Promise.all(
      urls.map(async (url) => {
        const a = await h.account({ plan: 'enterprise' });
        return { url, r: await listFromUrl(a.sandbox, url) };
      }),
    );
    const grown = rss(pid) - before;
    const codes = new Set(Object.keys(ERROR_STATUS));
    // What each case is: a broken protocol or a download that never completes is the source's
    // fault (bad_gateway, or timeout at the list deadline); bytes that arrive but are not a UTF-8
    // list (a gzip bomb is never inflated: it is read as the bytes sent) are the list's.
    const expected: Record<string, string[]> = { 'invalid-utf8': ['invalid_upload'], 'gzip-bomb': ['invalid_upload'], 'slow-drip': ['timeout'] };
    // A body that breaks off mid-stream fails the upload parser's read too: either names it.
    for (const c of ['broken-chunked', 'reset-mid-body']) expected[c] = ['bad_gateway', 'invalid_upload'];
    for (const { url, r } of results) {
      if (url.includes('/ok/')) {
        // The list itself is fine: the job is created under the raw segment's name.
        expect(r.isError ?? false, `${url}: ${text(r)}`).toBe(false);
        continue;
      }
      expect(r.isError, `${url}: ${text(r)}`).toBe(true);
      const code = text(r).split(':', 1)[0]!;
      expect(codes.has(code), `${url}: ${text(r)}`).toBe(true);
      expect(expected[new URL(url).pathname.split('/')[1]!] ?? ['bad_gateway'], `${url}: ${text(r)}`).toContain(code);
    }
    expect(exitCode, 'the gateway process exited').toBeUndefined();
    expect(gw.child.exitCode).toBeNull();
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    // The gzip bomb is never inflated and the huge header is refused at the parser's limit.
    expect(grown).toBeLessThan(150 * 1024 * 1024);
  }, 90_000);
});
