import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RdapBootstrap } from './bootstrap.ts';
import { parseWhoisText } from './parse.ts';

const VERISIGN_STYLE = `   Domain Name: EXAMPLE.COM
   Registry Domain ID: 2336799_DOMAIN_COM-VRSN
   Registrar WHOIS Server: whois.iana.org
   Updated Date: 2024-08-14T07:01:34Z
   Creation Date: 1995-08-14T04:00:00Z
   Registry Expiry Date: 2025-08-13T04:00:00Z
   Registrar: RESERVED-Internet Assigned Numbers Authority
   Registrar IANA ID: 376
   Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited
   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
   Name Server: A.IANA-SERVERS.NET
   Name Server: B.IANA-SERVERS.NET
   DNSSEC: signedDelegation
>>> Last update of whois database: 2024-09-01T00:00:00Z <<<`;

const DENIC_STYLE = `% Restricted rights.
Domain: example.de
Nserver: ns1.example.net
Nserver: ns2.example.net
Status: connect
Changed: 2023-05-04T10:00:00+02:00`;

describe('parseWhoisText', () => {
  it('reads the ICANN registry format', () => {
    expect(parseWhoisText(VERISIGN_STYLE)).toMatchObject({
      registered: true,
      registrar: 'RESERVED-Internet Assigned Numbers Authority',
      registrarIanaId: '376',
      created: '1995-08-14T04:00:00.000Z',
      expires: '2025-08-13T04:00:00.000Z',
      updated: '2024-08-14T07:01:34.000Z',
      status: ['clientDeleteProhibited', 'clientTransferProhibited'],
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
    });
  });

  it('reads ccTLD formats and recognises "no match"', () => {
    expect(parseWhoisText(DENIC_STYLE)).toMatchObject({ registered: true, status: ['connect'], nameservers: ['ns1.example.net', 'ns2.example.net'], updated: '2023-05-04T08:00:00.000Z' });
    expect(parseWhoisText('No match for "NOPE.COM".').registered).toBe(false);
    expect(parseWhoisText('refer:        whois.nic.zz\n\ndomain:       ZZ').referral).toBe('whois.nic.zz');
  });
});

describe('RdapBootstrap (shipped data)', () => {
  const b = new RdapBootstrap({ refreshMs: 1, limits: { timeoutMs: 100, maxBytes: 1000 } });
  it('maps TLDs and addresses to RDAP servers, longest match first', async () => {
    expect(await b.domainBaseUrls('example.com')).toEqual(['https://rdap.verisign.com/com/v1/']);
    expect(await b.domainBaseUrls('example.co.uk')).toEqual(['https://rdap.nominet.uk/uk/']);
    expect(await b.domainBaseUrls('example.dev')).toEqual(['https://pubapi.registry.google/rdap/']);
    expect(await b.domainBaseUrls('example.de')).toEqual([]);
    expect(await b.ipBaseUrls('193.0.6.139')).toEqual(['https://rdap.db.ripe.net/']);
    expect(await b.ipBaseUrls('8.8.8.8')).toEqual(['https://rdap.arin.net/registry/']);
    expect(await b.ipBaseUrls('2a00:1450::1')).toEqual(['https://rdap.db.ripe.net/']);
    expect(b.allowedHosts().has('rdap.verisign.com')).toBe(true);
  });
});

describe('RdapBootstrap (fetched)', () => {
  it('a failed fetch keeps the shipped data and is tried again after retryMs, not on every lookup', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.writeHead(503).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      let now = 0;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns.json`;
      const b = new RdapBootstrap({ url, refreshMs: 86_400_000, retryMs: 60_000, limits: { timeoutMs: 2000, maxBytes: 100_000 }, nowMs: () => now });
      expect(await b.domainBaseUrls('example.com')).toEqual(['https://rdap.verisign.com/com/v1/']);
      expect(requests).toBe(3); // dns.json, ipv4.json, ipv6.json
      now = 59_000;
      await b.domainBaseUrls('example.com');
      expect(requests).toBe(3);
      now = 60_000;
      await b.domainBaseUrls('example.com');
      expect(requests).toBe(6);
    } finally {
      server.close();
    }
  });
});
