// Whose failure is it: a session the node itself broke (its source address cannot be
// bound, or it cut the session while stopping) says `node_fault`, so the scheduler neither marks
// the MX host down nor judges the addresses; a failure the host may have caused does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { egressFault } from './plan.ts';
import { createResolver } from './resolve.ts';
import { runSession } from './session.ts';
import { prober, request, testConfig } from './testing.ts';

let world: WorldHandle;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
});
afterAll(async () => {
  await world.stop();
});

describe('node_fault', () => {
  it('is egress only when every dialled address failed on the node’s side', () => {
    expect(egressFault(2, 2)).toBe('egress');
    expect(egressFault(2, 1)).toBeUndefined();
    expect(egressFault(0, 0)).toBeUndefined();
  });

  it('egress: a source address this host does not have (TEST-NET-1) fails every connect locally; the host sees nothing', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessionsTotal;
    const probe = prober(testConfig(world.env, { PROBE_SOURCE_IPS: '192.0.2.10' }));
    const run = await probe(request('acme.test', ['mx1.acme.test'], ['alice@acme.test']));
    expect(run.reply).toMatchObject({ outcome: 'connect_failed', node_fault: 'egress', mx_used: null });
    expect(run.reply.connect_errors).toEqual([{ host: 'mx1.acme.test', ip: '127.0.1.10', error: 'source address not available' }]);
    expect(run.reply.results[0]!.state).toBe('not_attempted');
    expect(host.sessionsTotal).toBe(before);
  });

  it('a refused connection may be the host’s: no node_fault', async () => {
    const run = await prober(testConfig(world.env))(request('fallback.test', ['mx1.fallback.test'], ['user@fallback.test']));
    expect(run.reply.outcome).toBe('connect_failed');
    expect(run.reply.node_fault).toBeUndefined();
  });

  it('shutdown: a session the node cuts while stopping says so; the session deadline does not', async () => {
    const config = testConfig(world.env);
    const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
    // The tarpit host answers each line after 1 s: the cut lands in the middle of the dialogue.
    const stopping = new AbortController();
    const cut = runSession(request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test']), { config, nodeId: 'n', resolver, signal: stopping.signal });
    setTimeout(() => stopping.abort(new Error('probe node shutting down')), 300);
    const run = await cut;
    expect(run.reply).toMatchObject({ outcome: 'timeout', node_fault: 'shutdown' });
    expect(run.reply.results[0]!.reply).toBeNull();

    const deadline = await runSession(request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test'], { timeouts: { sessionMs: 300 } }), { config, nodeId: 'n', resolver, signal: new AbortController().signal });
    expect(deadline.reply.outcome).toBe('timeout');
    expect(deadline.reply.node_fault).toBeUndefined();
  });
});
