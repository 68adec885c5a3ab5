// MX addresses in private and special-purpose ranges are refused before any connection unless
// PROBE_ALLOW_PRIVATE_MX is on (test worlds): checked on the simulated host's own session log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { probeConfigSchema, probeProductionRules } from './config.ts';
import { productionProblems } from '@dv/runtime';
import { prober, request, testConfig } from './testing.ts';

let world: WorldHandle;
let guarded: ReturnType<typeof prober>;
let open: ReturnType<typeof prober>;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  guarded = prober(testConfig(world.env, { PROBE_ALLOW_PRIVATE_MX: 'false' }));
  open = prober(testConfig(world.env));
});

afterAll(async () => {
  await world.stop();
});

describe('private MX addresses', () => {
  it('is off by default and refused in production', () => {
    expect(probeConfigSchema.parse({}).PROBE_ALLOW_PRIVATE_MX).toBe(false);
    const on = probeConfigSchema.parse({ PROBE_ALLOW_PRIVATE_MX: 'true', PROBE_HELO_NAME: 'probe1.example.com', PROBE_MAIL_FROM: 'verify@example.com' });
    expect(productionProblems(on, probeProductionRules)).toEqual([expect.stringMatching(/^PROBE_ALLOW_PRIVATE_MX: /)]);
  });

  it('an MX host name resolving to 127.x is refused without a connection; allowed, the same session runs', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessions.length;
    const { reply } = await guarded(request('acme.test', ['mx1.acme.test'], ['alice@acme.test']));
    expect(reply.outcome).toBe('mx_refused');
    expect(reply.connections).toBe(0);
    expect(reply.mx_used).toBeNull();
    expect(reply.connect_errors).toEqual([{ host: 'mx1.acme.test', ip: expect.stringMatching(/^127\./), error: expect.stringContaining('loopback address') }]);
    expect(reply.results).toEqual([expect.objectContaining({ address: 'alice@acme.test', state: 'not_attempted', reply: null })]);
    expect(reply.detail).toMatch(/no MX host may be probed/);
    expect(host.sessions.length).toBe(before);

    const allowed = await open(request('acme.test', ['mx1.acme.test'], ['alice@acme.test']));
    expect(allowed.reply.outcome).toBe('completed');
    expect(host.sessions.length).toBe(before + 1);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'cloud_metadata'],
    ['100.64.0.1', 'cgnat'],
    ['[::1]', 'loopback'],
  ])('an IP literal MX %s is refused as %s', async (mx, range) => {
    const { reply } = await guarded(request('acme.test', [mx], ['alice@acme.test'], { catch_all_probe: false }));
    expect(reply.outcome).toBe('mx_refused');
    expect(reply.connections).toBe(0);
    expect(reply.connect_errors?.[0]?.error).toContain(`${range} address`);
  });

  it('a refused MX next to a host name without address is still mx_refused: nothing was dialled', async () => {
    const { reply } = await guarded(request('acme.test', ['10.0.0.1', 'no-such-host.acme.test'], ['alice@acme.test'], { catch_all_probe: false }));
    expect(reply.outcome).toBe('mx_refused');
    expect(reply.connect_errors?.map((e) => e.ip)).toEqual(['10.0.0.1', null]);
  });
});
