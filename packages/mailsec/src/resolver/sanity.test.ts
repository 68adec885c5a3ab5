import { afterEach, describe, expect, it } from 'vitest';
import { Packet } from 'dns2';
import { judgeCanaries, type CanaryAnswer } from './sanity.ts';
import { resolverDependency, saneDnsResolver, type SaneDns } from './sanity-check.ts';
import { reply, startTestDnsServer, type TestDnsServer, type TestQuery } from './test-server.ts';

const a = (name: string, rcode: CanaryAnswer['rcode'], addresses: string[] = []): CanaryAnswer => ({ name, rcode, addresses });

describe('judgeCanaries', () => {
  it.each([
    ['distinct addresses', [a('g.test', 'NOERROR', ['192.0.2.1']), a('o.test', 'NOERROR', ['192.0.2.2'])], 'trustworthy'],
    ['every canary NXDOMAIN', [a('g.test', 'NXDOMAIN'), a('o.test', 'NXDOMAIN')], 'denies_existing'],
    ['most NXDOMAIN, one timed out', [a('g.test', 'NXDOMAIN'), a('o.test', 'NXDOMAIN'), a('y.test', 'TIMEOUT')], 'denies_existing'],
    ['one of three gone', [a('g.test', 'NXDOMAIN'), a('o.test', 'NOERROR', ['192.0.2.2']), a('y.test', 'NOERROR', ['192.0.2.3'])], 'trustworthy'],
    ['one address for all', [a('g.test', 'NOERROR', ['198.51.100.7']), a('o.test', 'NOERROR', ['198.51.100.7'])], 'one_address'],
    ['one canary cannot show sameness', [a('g.test', 'NOERROR', ['198.51.100.7'])], 'trustworthy'],
    ['nothing answered', [a('g.test', 'TIMEOUT'), a('o.test', 'SERVFAIL')], 'inconclusive'],
  ] as const)('%s: %s', (_name, answers, state) => {
    expect(judgeCanaries(answers).state).toBe(state);
  });
});

let server: TestDnsServer | undefined;
let dns: SaneDns | undefined;
afterEach(async () => {
  dns?.close();
  dns = undefined;
  await server?.close();
  server = undefined;
});

const CANARIES = ['g.test', 'o.test'];
/** A truthful zone (the canaries exist) until `lie` is set: then NXDOMAIN to every name. */
function zone(state: { lie: boolean }) {
  return (q: TestQuery) => {
    const name = q.name.toLowerCase();
    if (!state.lie && q.type === Packet.TYPE.A && name === 'g.test') return [reply(q, { answers: [{ type: Packet.TYPE.A, address: '192.0.2.1' }] })];
    if (!state.lie && q.type === Packet.TYPE.A && name === 'o.test') return [reply(q, { answers: [{ type: Packet.TYPE.A, address: '192.0.2.2' }] })];
    return [reply(q, { rcode: 3 })];
  };
}

describe('SaneResolver against a real server', () => {
  it('passes a truthful NXDOMAIN through', async () => {
    server = await startTestDnsServer(zone({ lie: false }));
    dns = saneDnsResolver({ servers: [server.address], canaries: CANARIES, resolver: { timeoutMs: 500 } });
    expect((await dns.resolver.resolve('gone.test', 'MX')).rcode).toBe('NXDOMAIN');
    expect(dns.sanity.state).toBe('trustworthy');
  });

  it('withholds the NXDOMAINs of a resolver that denies the canaries, says so, and believes it again once it mends', async () => {
    const state = { lie: true };
    server = await startTestDnsServer(zone(state));
    dns = saneDnsResolver({ servers: [server.address], canaries: CANARIES, resolver: { timeoutMs: 500 } });
    const r = await dns.resolver.resolve('g.test', 'A');
    expect(r.rcode).toBe('SERVFAIL');
    expect(r.error).toMatch(/^resolver unreliable: .*g\.test/);
    expect(dns.sanity.state).toBe('denies_existing');
    expect(await resolverDependency(() => [dns!.sanity]).isReady()).toBe(false);
    state.lie = false;
    await dns.sanity.check();
    // The lie it cached is forgotten once it is believed again.
    expect((await dns.resolver.resolve('g.test', 'A')).rcode).toBe('NOERROR');
    expect(await resolverDependency(() => [dns!.sanity]).isReady()).toBe(true);
  });

  it('a silent resolver is not called a liar (offline stays believed)', async () => {
    server = await startTestDnsServer(() => []);
    dns = saneDnsResolver({ servers: [server.address], canaries: CANARIES, resolver: { timeoutMs: 100, retries: 0 } });
    await dns.sanity.check();
    expect(dns.sanity.believed).toBe(true);
  });
});
