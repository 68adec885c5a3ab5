// RFC 9083 response bodies built from a world's registration data.
import { bigIntToIp } from '../names.ts';
import type { IpRange } from '../names.ts';
import type { RdapDomain, RdapIp } from '../schema.ts';

type Json = Record<string, unknown>;

const NOTICE = {
  title: 'Simulated internet',
  description: ['Registration data served by the simulated internet for tests and demos; it describes no real registration.'],
};

function vcard(properties: [string, Json, string, unknown][]): unknown[] {
  return ['vcard', [['version', {}, 'text', '4.0'], ...properties]];
}

function handleOf(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}-SIM`;
}

export function domainBody(name: string, domain: RdapDomain, selfUrl: string): Json {
  const events = [
    { eventAction: 'registration', eventDate: domain.created },
    { eventAction: 'expiration', eventDate: domain.expires },
    ...(domain.updated === undefined ? [] : [{ eventAction: 'last changed', eventDate: domain.updated }]),
  ];
  const registrar: Json = {
    objectClassName: 'entity',
    roles: ['registrar'],
    vcardArray: vcard([['fn', {}, 'text', domain.registrar]]),
    ...(domain.registrarIanaId === undefined ? {} : { publicIds: [{ type: 'IANA Registrar ID', identifier: String(domain.registrarIanaId) }] }),
  };
  const entities: Json[] = [registrar];
  if (domain.registrantOrg !== undefined || domain.registrantCountry !== undefined) {
    const properties: [string, Json, string, unknown][] = [];
    if (domain.registrantOrg !== undefined) properties.push(['fn', {}, 'text', domain.registrantOrg], ['org', {}, 'text', domain.registrantOrg]);
    // jCard addresses carry the country code as the "cc" parameter (RFC 8605).
    if (domain.registrantCountry !== undefined) properties.push(['adr', { cc: domain.registrantCountry }, 'text', ['', '', '', '', '', '', '']]);
    entities.push({ objectClassName: 'entity', roles: ['registrant'], vcardArray: vcard(properties) });
  }
  return {
    rdapConformance: ['rdap_level_0'],
    objectClassName: 'domain',
    handle: handleOf(name),
    ldhName: name,
    status: domain.status,
    events,
    nameservers: domain.nameservers.map((ns) => ({ objectClassName: 'nameserver', ldhName: ns })),
    secureDNS: { delegationSigned: domain.dnssec },
    entities,
    links: [{ value: selfUrl, rel: 'self', href: selfUrl, type: 'application/rdap+json' }],
    notices: [NOTICE],
  };
}

export function ipBody(network: RdapIp, range: IpRange, selfUrl: string): Json {
  const start = bigIntToIp(range.start, range.version);
  return {
    rdapConformance: ['rdap_level_0', 'cidr0', ...(network.asn === undefined ? [] : ['arin_originas0'])],
    objectClassName: 'ip network',
    handle: network.handle ?? `NET-${start.replace(/[.:]/g, '-')}-${range.prefix}`,
    startAddress: start,
    endAddress: bigIntToIp(range.end, range.version),
    ipVersion: range.version === 4 ? 'v4' : 'v6',
    name: network.name,
    type: 'ASSIGNED',
    country: network.country,
    cidr0_cidrs: [range.version === 4 ? { v4prefix: start, length: range.prefix } : { v6prefix: start, length: range.prefix }],
    ...(network.asn === undefined ? {} : { arin_originas0_originautnums: [network.asn] }),
    links: [{ value: selfUrl, rel: 'self', href: selfUrl, type: 'application/rdap+json' }],
    notices: [NOTICE],
  };
}

export function errorBody(errorCode: number, title: string, description: string): Json {
  return { rdapConformance: ['rdap_level_0'], errorCode, title, description: [description] };
}

// IANA bootstrap registry format (RFC 9224): [[entries], [base URLs]] pairs.
export function bootstrapBody(entries: string[], baseUrl: string, description: string): Json {
  return {
    version: '1.0',
    publication: '2024-01-01T00:00:00Z',
    description,
    services: entries.length === 0 ? [] : [[entries, [baseUrl]]],
  };
}
