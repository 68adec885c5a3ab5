// whois_lookup: RDAP against the simulated world's server, port-43 WHOIS against a tiny local TCP
// server, and the RDAP host allowlist / size cap against a local HTTP server. Loopback only.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { startMailsecWorld } from '../testing/world.ts';
import { createEngine } from './engine.ts';
import type { Engine } from './types.ts';

const NOW = new Date('2026-01-15T12:00:00Z');
let world: WorldHandle;
let engine: Engine;
let whoisServer: net.Server;
let whoisPort: number;
const whoisQueries: string[] = [];

const WHOIS_ANSWER = `% Simulated registry
Domain Name: EXAMPLE.ZZ
Registrar: Zed Names GmbH
Creation Date: 2001-02-03T04:05:06Z
Registry Expiry Date: 2027-02-03T04:05:06Z
Updated Date: 2025-01-01T00:00:00Z
Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
Name Server: NS1.EXAMPLE.ZZ
Name Server: NS2.EXAMPLE.ZZ
Registrant Organization: Example Zed AG
Registrant Country: CH
DNSSEC: unsigned
`;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

beforeAll(async () => {
  world = await startMailsecWorld();
  whoisServer = net.createServer((socket) => {
    let line = '';
    socket.on('data', (chunk) => {
      line += chunk.toString('utf8');
      if (!line.includes('\r\n')) return;
      const query = line.trim();
      whoisQueries.push(query);
      socket.end(query === 'example.zz' ? WHOIS_ANSWER : `No match for "${query.toUpperCase()}".\n`);
    });
    socket.on('error', () => undefined);
  });
  whoisPort = await listen(whoisServer);
  engine = createEngine({
    dnsServers: [world.dns.server],
    rdapBootstrapUrl: world.rdapBootstrapUrl,
    allowPrivateTargets: true,
    whoisPort,
    whoisServers: { zz: '127.0.0.1' },
    dnsTimeoutMs: 500,
    now: () => NOW,
  });
});

afterAll(async () => {
  await engine?.close();
  await world?.stop();
  await new Promise((resolve) => whoisServer?.close(resolve));
});

type Whois = Record<string, unknown>;

describe('whois_lookup over RDAP', () => {
  it('normalizes a registered domain (by its registrable domain)', async () => {
    const out = await engine.run('whois_lookup', { target: 'www.acme.test' });
    expect(out.data.whois).toMatchObject({
      kind: 'domain',
      registered: true,
      source: 'rdap',
      registrar: 'Simulated Registrar, Inc.',
      registrar_iana_id: '9999',
      status: ['client transfer prohibited', 'client delete prohibited'],
      created: '2009-03-14T00:00:00.000Z',
      expires: '2030-03-14T00:00:00.000Z',
      updated: '2024-02-01T00:00:00.000Z',
      nameservers: ['ns1.simulated.test'],
      registrant_org: 'Acme Corporation',
      registrant_country: 'US',
      dnssec: true,
      expired: false,
    });
    expect(out.data.meta).toMatchObject({ domain: 'www.acme.test', query: 'acme.test', dnssec: 'signed' });
    expect(out.result.Registrar).toBe('Simulated Registrar, Inc.');
    expect(out.summary).toBe('acme.test is registered with Simulated Registrar, Inc. since 2009-03-14. It expires on 2030-03-14 (in 4 years).');
  });

  it('reports expired and unregistered domains', async () => {
    const expiring = await engine.run('whois_lookup', { target: 'expiring.test' });
    expect(expiring.data.whois).toMatchObject({ expired: true, status: ['pending delete', 'server hold'] });
    expect(expiring.summary).toMatch(/expired on 2024-01-01.*Status: pending delete/);
    const unknown = await engine.run('whois_lookup', { target: 'never-registered.test' });
    expect(unknown.data.whois).toMatchObject({ registered: false, source: 'rdap' });
    expect(unknown.summary).toMatch(/is not registered/);
  });

  it('looks up IP networks (most specific match)', async () => {
    const out = await engine.run('whois_lookup', { target: '127.0.1.10' });
    expect(out.data.whois).toMatchObject({ kind: 'ip', registered: true, network: { name: 'ACME-HOSTING', handle: 'NET-ACME-1', cidrs: ['127.0.1.0/24'], country: 'US', asns: [64500] } });
    expect(out.summary).toBe('127.0.1.10 belongs to ACME-HOSTING (127.0.1.0/24) in US, announced by AS64500.');
    const wide = await engine.run('whois_lookup', { target: '127.0.9.9' });
    expect((wide.data.whois as { network: { name: string } }).network.name).toBe('SIMULATED-LOOPBACK');
  });
});

describe('whois_lookup over port 43', () => {
  it('parses the Key: value answer of a TLD without RDAP', async () => {
    const out = await engine.run('whois_lookup', { target: 'example.zz' });
    expect(whoisQueries).toContain('example.zz');
    expect(out.data.whois).toMatchObject({
      source: 'whois',
      registered: true,
      registrar: 'Zed Names GmbH',
      created: '2001-02-03T04:05:06.000Z',
      expires: '2027-02-03T04:05:06.000Z',
      status: ['clientTransferProhibited'],
      nameservers: ['ns1.example.zz', 'ns2.example.zz'],
      registrant_org: 'Example Zed AG',
      registrant_country: 'CH',
      dnssec: false,
    });
    expect((out.data.whois as Whois).raw).toContain('Zed Names GmbH');
  });

  it('recognizes "no match"', async () => {
    const out = await engine.run('whois_lookup', { target: 'nothing.zz' });
    expect(out.data.whois).toMatchObject({ source: 'whois', registered: false });
  });

  it('answers with an error when no server is known and the IANA referral cannot be reached', async () => {
    const out = await engine.run('whois_lookup', { target: 'example.yy' });
    expect(out.data.whois).toMatchObject({ registered: null });
    expect((out.data.whois as Whois).error).toMatch(/no RDAP or WHOIS server/);
  });
});

describe('RDAP request limits', () => {
  let rdap: http.Server;
  let port: number;
  let limited: Engine;

  beforeAll(async () => {
    rdap = http.createServer((req, res) => {
      const base = `http://127.0.0.1:${port}/rdap/`;
      if (req.url === '/bootstrap/dns.json') return void res.end(JSON.stringify({ version: '1.0', services: [[['qq'], [base]]] }));
      if (req.url === '/rdap/domain/redirect.qq') {
        res.writeHead(302, { location: `http://localhost:${port}/rdap/domain/redirect.qq` });
        return void res.end();
      }
      if (req.url === '/rdap/domain/big.qq') return void res.end(`{"pad":"${'x'.repeat(2_000_000)}"}`);
      res.writeHead(404).end('{}');
    });
    port = await listen(rdap as unknown as net.Server);
    limited = createEngine({ dnsServers: [world.dns.server], rdapBootstrapUrl: `http://127.0.0.1:${port}/bootstrap/dns.json`, whoisPort, dnsTimeoutMs: 300 });
  });

  afterAll(async () => {
    await limited?.close();
    rdap?.closeAllConnections();
    await new Promise((resolve) => rdap?.close(resolve));
  });

  it('refuses redirects to hosts outside the bootstrap', async () => {
    const out = await limited.run('whois_lookup', { target: 'redirect.qq' });
    const attempts = (out.data.whois as { attempts: { source: string; outcome: string }[] }).attempts;
    expect(attempts[0]).toMatchObject({ source: 'rdap', outcome: expect.stringMatching(/localhost:\d+ is not a configured RDAP host/) });
  });

  it('caps the response size', async () => {
    const out = await limited.run('whois_lookup', { target: 'big.qq' });
    const attempts = (out.data.whois as { attempts: { outcome: string }[] }).attempts;
    expect(attempts[0]?.outcome).toMatch(/larger than 1048576 bytes/);
  });
});
