import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdapServer } from './server.ts';
import type { RdapServerHandle } from './server.ts';

let rdap: RdapServerHandle;

beforeAll(async () => {
  rdap = await startRdapServer(
    {
      domains: {
        'Acme.test': {
          registrar: 'Simulated Registrar, Inc.',
          registrarIanaId: 9999,
          created: '2009-03-14',
          expires: '2030-03-14T12:00:00Z',
          updated: '2024-02-01',
          status: ['client transfer prohibited'],
          nameservers: ['NS1.simulated.test'],
          registrantOrg: 'Acme Corporation',
          registrantCountry: 'US',
          dnssec: true,
        },
      },
      ips: [
        { cidr: '127.0.0.0/8', name: 'SIM-LOOPBACK', country: 'NL' },
        { cidr: '127.0.1.0/24', name: 'ACME-HOSTING', country: 'US', asn: 64500 },
        { cidr: '2001:db8::/32', name: 'DOC-V6', country: 'FR' },
      ],
    },
    { tlds: ['example'] },
  );
});

afterAll(async () => {
  await rdap.stop();
});

async function get(path: string): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const response = await fetch(new URL(path, rdap.baseUrl));
  return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
}

describe('RDAP server', () => {
  it('serves an RFC 9083 domain object, whatever the case of the query', async () => {
    const { status, type, body } = await get('domain/ACME.test');
    expect(status).toBe(200);
    expect(type).toBe('application/rdap+json');
    expect(body).toMatchObject({
      objectClassName: 'domain',
      ldhName: 'acme.test',
      status: ['client transfer prohibited'],
      nameservers: [{ objectClassName: 'nameserver', ldhName: 'ns1.simulated.test' }],
      secureDNS: { delegationSigned: true },
      events: [
        { eventAction: 'registration', eventDate: '2009-03-14T00:00:00Z' },
        { eventAction: 'expiration', eventDate: '2030-03-14T12:00:00Z' },
        { eventAction: 'last changed', eventDate: '2024-02-01T00:00:00Z' },
      ],
    });
    const entities = body.entities as { roles: string[]; vcardArray: [string, unknown[][]]; publicIds?: unknown[] }[];
    expect(entities.find((e) => e.roles.includes('registrar'))?.vcardArray[1]).toContainEqual(['fn', {}, 'text', 'Simulated Registrar, Inc.']);
    expect(entities.find((e) => e.roles.includes('registrar'))?.publicIds).toEqual([{ type: 'IANA Registrar ID', identifier: '9999' }]);
    const registrant = entities.find((e) => e.roles.includes('registrant'))?.vcardArray[1];
    expect(registrant).toContainEqual(['org', {}, 'text', 'Acme Corporation']);
    expect(registrant).toContainEqual(['adr', { cc: 'US' }, 'text', ['', '', '', '', '', '', '']]);
  });

  it('answers 404 with an RDAP error body for an unknown domain', async () => {
    const { status, type, body } = await get('domain/nowhere.test');
    expect(status).toBe(404);
    expect(type).toBe('application/rdap+json');
    expect(body).toMatchObject({ errorCode: 404, title: 'Not Found' });
  });

  it('finds the most specific network for an IP', async () => {
    const { status, body } = await get('ip/127.0.1.10');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      objectClassName: 'ip network',
      startAddress: '127.0.1.0',
      endAddress: '127.0.1.255',
      ipVersion: 'v4',
      name: 'ACME-HOSTING',
      country: 'US',
      cidr0_cidrs: [{ v4prefix: '127.0.1.0', length: 24 }],
      arin_originas0_originautnums: [64500],
    });
    expect((await get('ip/127.9.9.9')).body).toMatchObject({ name: 'SIM-LOOPBACK', startAddress: '127.0.0.0', endAddress: '127.255.255.255' });
    expect((await get('ip/2001:db8::1')).body).toMatchObject({ ipVersion: 'v6', startAddress: '2001:db8::', endAddress: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff' });
  });

  it('answers 404 for an IP outside every network and 400 for something that is not an IP', async () => {
    expect((await get('ip/192.0.2.1')).status).toBe(404);
    const bad = await get('ip/not-an-ip');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: 400 });
  });

  it('publishes an IANA-style bootstrap listing the TLDs with its own base URL', async () => {
    const response = await fetch(rdap.bootstrapUrl);
    const body = (await response.json()) as { version: string; services: [string[], string[]][] };
    expect(body.version).toBe('1.0');
    expect(body.services).toEqual([[['example', 'test'], [rdap.baseUrl]]]);
    expect(rdap.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rdap\/$/);
    const v4 = (await (await fetch(new URL('/bootstrap/ipv4.json', rdap.baseUrl))).json()) as { services: unknown[] };
    expect(v4.services).toEqual([[['127.0.0.0/8', '127.0.1.0/24'], [rdap.baseUrl]]]);
  });

  it('answers 400 to a malformed escape in the name, and keeps serving', async () => {
    for (const path of ['domain/%E0', 'ip/%', 'domain/a%FFb.test']) {
      const bad = await get(path);
      expect(bad.status, path).toBe(400);
      expect(bad.body, path).toMatchObject({ errorCode: 400 });
    }
    expect((await get('domain/acme.test')).status).toBe(200);
  });

  it('refuses other methods', async () => {
    const response = await fetch(new URL('domain/acme.test', rdap.baseUrl), { method: 'POST' });
    expect(response.status).toBe(405);
    await response.body?.cancel();
  });
});
