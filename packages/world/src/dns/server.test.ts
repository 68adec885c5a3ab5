import { Resolver } from 'node:dns/promises';
import { Packet, TCPClient, UDPClient } from 'dns2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer } from './server.ts';
import type { DnsServerHandle } from './server.ts';

const bigText = (tag: string): string => `${tag} ${'x'.repeat(240)}`;

let dns: DnsServerHandle;
let resolver: Resolver;

beforeAll(async () => {
  dns = await startDnsServer({
    records: [
      { name: 'test', type: 'SOA', primary: 'ns1.sim.test', admin: 'hostmaster.sim.test', minimum: 60 },
      { name: 'acme.test', type: 'MX', priority: 10, exchange: 'MX1.acme.test.' },
      { name: 'acme.test', type: 'MX', priority: 20, exchange: 'mx2.acme.test' },
      { name: 'mx1.acme.test', type: 'A', address: '127.0.1.10' },
      { name: 'acme.test', type: 'TXT', text: ['v=spf1 ', 'mx -all'] },
      { name: 'acme.test', type: 'CAA', tag: 'issue', value: 'ca.test' },
      { name: 'www.acme.test', type: 'CNAME', target: 'web.acme.test' },
      { name: 'web.acme.test', type: 'CNAME', target: 'mx1.acme.test' },
      { name: 'dangling.acme.test', type: 'CNAME', target: 'gone.nowhere.test' },
      { name: 'deep.sub.acme.test', type: 'A', address: '127.0.1.99' },
      { name: 'nullmx.test', type: 'MX', priority: 0, exchange: '.' },
      { name: '10.1.0.127.in-addr.arpa', type: 'PTR', target: 'mx1.acme.test' },
      { name: 'signed.test', type: 'A', address: '127.0.9.9' },
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((tag) => ({ name: 'big.test', type: 'TXT' as const, text: bigText(tag) })),
    ],
    behaviours: {
      'servfail.test': { servfail: true },
      'timeout.test': { timeout: true },
      'big.test': { truncate: true },
      'slow.test': { latencyMs: 150 },
    },
    signedZones: ['signed.test'],
  });
  resolver = new Resolver({ timeout: 400, tries: 1 });
  resolver.setServers([dns.server]);
});

afterAll(async () => {
  await dns.stop();
});

const udp = (options: { retryOverTCP?: boolean; timeout?: number } = {}) => UDPClient({ dns: dns.host, port: dns.port, ...options });
const tcp = () => TCPClient({ dns: dns.host, port: dns.port });

async function errorCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe('DNS server answers like an authoritative server', () => {
  it('serves MX records, names case-insensitive and without the trailing dot', async () => {
    const mx = await resolver.resolveMx('ACME.test');
    expect(mx.sort((a, b) => a.priority - b.priority)).toMatchObject([
      { exchange: 'mx1.acme.test', priority: 10 },
      { exchange: 'mx2.acme.test', priority: 20 },
    ]);
  });

  it('serves a null MX as exchange "" with priority 0', async () => {
    expect(await resolver.resolveMx('nullmx.test')).toMatchObject([{ exchange: '', priority: 0 }]);
  });

  it('keeps the character-strings of one TXT record apart', async () => {
    expect(await resolver.resolveTxt('acme.test')).toEqual([['v=spf1 ', 'mx -all']]);
  });

  it('serves CAA and PTR records', async () => {
    expect(await resolver.resolveCaa('acme.test')).toMatchObject([{ critical: 0, issue: 'ca.test' }]);
    expect(await resolver.reverse('127.0.1.10')).toEqual(['mx1.acme.test']);
  });

  it('answers NXDOMAIN for an absent name and NODATA for a present name without the type', async () => {
    expect(await errorCode(resolver.resolve4('absent.acme.test'))).toBe('ENOTFOUND');
    expect(await errorCode(resolver.resolveMx('mx1.acme.test'))).toBe('ENODATA');
    // sub.acme.test has no records itself but deep.sub.acme.test does: an empty non-terminal exists.
    expect(await errorCode(resolver.resolve4('sub.acme.test'))).toBe('ENODATA');
  });

  it('puts the enclosing SOA in the authority section of negative answers and sets AA', async () => {
    const answer = await udp()('absent.acme.test', 'A');
    expect(answer.header.rcode).toBe(3);
    expect(answer.header.aa).toBe(1);
    expect(answer.authorities.map((r) => r.type)).toEqual([Packet.TYPE.SOA]);
    expect(answer.authorities[0]?.name).toBe('test');
  });

  it('answers SERVFAIL where scripted', async () => {
    expect(await errorCode(resolver.resolveMx('servfail.test'))).toBe('ESERVFAIL');
  });

  it('never answers a timeout name, so the client times out', async () => {
    const startedMs = Date.now();
    expect(await errorCode(resolver.resolve4('timeout.test'))).toBe('ETIMEOUT');
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(350);
    await expect(udp({ timeout: 300 })('timeout.test', 'A')).rejects.toThrow();
  });

  it('truncates over UDP (TC set, no answers) and serves the full answer over TCP', async () => {
    const overUdp = await udp({ retryOverTCP: false })('big.test', 'TXT');
    expect(overUdp.header.tc).toBe(1);
    expect(overUdp.answers).toHaveLength(0);
    const overTcp = await tcp()('big.test', 'TXT');
    expect(overTcp.header.tc).toBe(0);
    expect(overTcp.answers).toHaveLength(6);
    // node:dns follows TC by retrying over TCP on its own.
    expect((await resolver.resolveTxt('big.test')).flat().sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map(bigText));
    expect(dns.queries.filter((q) => q.name === 'big.test').map((q) => q.transport)).toContain('tcp');
  });

  it('chases CNAME chains within the world and returns every link', async () => {
    const answer = await udp()('www.acme.test', 'A');
    expect(answer.answers.map((r) => [r.name, r.type])).toEqual([
      ['www.acme.test', Packet.TYPE.CNAME],
      ['web.acme.test', Packet.TYPE.CNAME],
      ['mx1.acme.test', Packet.TYPE.A],
    ]);
    expect(await resolver.resolve4('www.acme.test')).toEqual(['127.0.1.10']);
    expect(await resolver.resolveCname('www.acme.test')).toEqual(['web.acme.test']);
  });

  it('answers NXDOMAIN with the CNAME when the chain ends nowhere', async () => {
    const answer = await udp()('dangling.acme.test', 'A');
    expect(answer.header.rcode).toBe(3);
    expect(answer.answers.map((r) => r.type)).toEqual([Packet.TYPE.CNAME]);
  });

  it('sets AD for signed zones only', async () => {
    const signed = await udp()('signed.test', 'A');
    const unsigned = await udp()('mx1.acme.test', 'A');
    expect((signed.header as unknown as { ad: number }).ad).toBe(1);
    expect((unsigned.header as unknown as { ad: number }).ad).toBe(0);
  });

  it('echoes an EDNS0 OPT record and still answers', async () => {
    const query = new Packet();
    query.header.id = 4242;
    query.header.rd = 1;
    query.questions.push({ name: 'mx1.acme.test', type: Packet.TYPE.A, class: Packet.CLASS.IN } as never);
    query.additionals.push(Packet.Resource.EDNS([]));
    const response = await sendUdp(query.toBuffer());
    expect(response.header.id).toBe(4242);
    expect(response.answers.map((r) => r.address)).toEqual(['127.0.1.10']);
    expect(response.additionals.map((r) => r.type)).toEqual([Packet.TYPE.EDNS]);
  });

  it('adds scripted latency to a name', async () => {
    const startedMs = Date.now();
    expect(await errorCode(resolver.resolve4('slow.test'))).toBe('ENOTFOUND');
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(140);
  });

  it('setRecords replaces the whole record set (and behaviours when given), and rejects invalid records', async () => {
    const server = await startDnsServer({ records: [{ name: 'old.test', type: 'A', address: '127.0.0.5' }] });
    try {
      const own = new Resolver({ timeout: 400, tries: 1 });
      own.setServers([server.server]);
      expect(await own.resolve4('old.test')).toEqual(['127.0.0.5']);
      server.setRecords([{ name: 'new.test', type: 'TXT', text: 'v=spf1 -all' }]);
      expect(await errorCode(own.resolve4('old.test'))).toBe('ENOTFOUND');
      expect(await own.resolveTxt('new.test')).toEqual([['v=spf1 -all']]);
      expect(() => server.setRecords([{ name: 'bad name', type: 'A', address: 'nope' } as never])).toThrow(/address/);
      expect(await own.resolveTxt('new.test')).toEqual([['v=spf1 -all']]);
      server.setRecords([{ name: 'new.test', type: 'TXT', text: 'v=spf1 -all' }], { 'new.test': { servfail: true } });
      expect(await errorCode(own.resolveTxt('new.test'))).toBe('ESERVFAIL');
      server.setRecords([{ name: 'new.test', type: 'TXT', text: 'v=spf1 -all' }]);
      expect(await errorCode(own.resolveTxt('new.test'))).toBe('ESERVFAIL');
      server.setRecords([{ name: 'new.test', type: 'TXT', text: 'v=spf1 -all' }], {});
      expect(await own.resolveTxt('new.test')).toEqual([['v=spf1 -all']]);
    } finally {
      await server.stop();
    }
  });
});

async function sendUdp(message: Buffer): Promise<Packet> {
  const dgram = await import('node:dgram');
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<Packet>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 1000);
      socket.once('message', (data) => {
        clearTimeout(timer);
        resolve(Packet.parse(data));
      });
      socket.send(message, dns.port, dns.host);
    });
  } finally {
    socket.close();
  }
}
