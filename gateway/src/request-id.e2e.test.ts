import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@dv/stack';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';
import { startLiveStack, until, type LiveStack } from './testing/live-stack.ts';

// One customer call followed across the services by its X-Request-Id, so an operator can trace it: echoed by the
// gateway, carried on the VERIFY message's header to the scheduler and on the probe-session
// request to the probe node, and named on their log lines about that work.

let h: GatewayHarness;
let live: LiveStack;
const LABEL = 'reqid';

beforeAll(async () => {
  h = await startGatewayHarness({ label: LABEL });
  live = await startLiveStack(h, { label: LABEL, schedulerEnv: { LOG_LEVEL: 'debug' }, probeEnv: { LOG_LEVEL: 'debug' } });
}, 180_000);

afterAll(async () => {
  await live?.stop();
  await h?.close();
}, 60_000);

function logLines(service: 'scheduler' | 'probe-node'): Array<Record<string, unknown>> {
  return readFileSync(join(REPO_ROOT, '.local', `${LABEL}-logs`, `${service}.log`), 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe('X-Request-Id', () => {
  let a: TestAccount;
  beforeAll(async () => {
    a = await h.account({ credits: 10 });
  });

  it('is echoed, and reaches the scheduler and probe node log lines of the session it caused', async () => {
    const id = `trace-${Date.now()}`;
    const r = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'alice@acme.test', wait: 25 }, headers: { 'x-request-id': id } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(id);
    const named = (service: 'scheduler' | 'probe-node', msg: string) => logLines(service).find((l) => l.msg === msg && String(l.request_id ?? '').split(',').includes(id));
    expect(await until(() => named('scheduler', 'probe session'), 10_000, 'scheduler session line with the request id')).toMatchObject({ domain: 'acme.test' });
    expect(await until(() => named('probe-node', 'probe session done'), 10_000, 'probe node session line with the request id')).toMatchObject({ domain: 'acme.test' });
  });

  it('replaces an id that is not plain (spaces, too long) with a fresh one', async () => {
    for (const bad of ['two words', 'x'.repeat(200)]) {
      const r = await call(h.url, '/v1/status', { headers: { 'x-request-id': bad } });
      const echoed = r.headers.get('x-request-id');
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
