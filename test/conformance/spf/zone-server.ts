// A real authoritative DNS server on loopback that answers exactly the loaded records: absent
// names are NXDOMAIN, present names without the asked type are NODATA, CNAMEs are followed inside
// the zone, and timeout markers make the server stay silent. UDP and TCP share one port: the
// simulated internet's DNS transport (listenDns). The answers are this driver's own, since the
// suite's zone data holds what the world's schema refuses (names with ':', '/', '%' or spaces,
// empty TXT records, timeouts for some types of a name only); SPF_CONFORMANCE_DNS=world runs the
// suite on the world's own server instead (world-adapter.ts).
import { RR_TYPE } from '@dv/net';
import { Packet } from 'dns2';
import type { Packet as PacketType, Resource } from 'dns2';
import { listenDns } from '@dv/world';
import { isTimeoutMarker, type TimeoutMarker, type ZoneEntry, type ZoneRecord, type ZoneRecordType } from './zonedata.ts';

/** What the conformance driver needs from a DNS world: the shared simulated internet fits too. */
export interface DnsWorld {
  /** `host:port` of the authoritative server. */
  address: string;
  setRecords(records: ZoneEntry[]): void | Promise<void>;
  close(): Promise<void>;
}

const TYPE_CODES: Readonly<Record<ZoneRecordType, number>> = RR_TYPE;
const NEGATIVE_TTL_S = 60;
const MAX_CNAME_HOPS = 10;

interface Zone {
  records: Map<string, ZoneRecord[]>;
  timeouts: Map<string, TimeoutMarker>;
}

function buildZone(entries: ZoneEntry[]): Zone {
  const zone: Zone = { records: new Map(), timeouts: new Map() };
  for (const e of entries) {
    const key = e.name.toLowerCase().replace(/\.$/, '');
    if (isTimeoutMarker(e)) zone.timeouts.set(key, e);
    else zone.records.set(key, [...(zone.records.get(key) ?? []), e]);
  }
  return zone;
}

function isSilent(zone: Zone, name: string, type: number): boolean {
  const marker = zone.timeouts.get(name);
  return !!marker && !(marker.exceptTypes ?? []).some((t) => TYPE_CODES[t] === type);
}

function toResource(owner: string, r: ZoneRecord): Resource {
  const base = { name: owner, type: TYPE_CODES[r.type], class: 1, ttl: r.ttl };
  switch (r.type) {
    case 'A':
      return { ...base, address: r.address } as Resource;
    case 'AAAA':
      // dns2 cannot encode every textual form (embedded IPv4); the URL parser normalises it.
      return { ...base, address: new URL(`http://[${r.address}]/`).hostname.slice(1, -1) } as Resource;
    case 'MX':
      return { ...base, priority: r.priority, exchange: r.exchange } as Resource;
    case 'TXT':
    case 'SPF': {
      const strings = typeof r.text === 'string' ? [r.text] : r.text;
      return { ...base, data: strings.flatMap(splitCharacterStrings) } as unknown as Resource;
    }
    case 'PTR':
    case 'CNAME':
      return { ...base, domain: r.target } as Resource;
  }
}

/** A character-string holds at most 255 bytes; longer text is split as zone files do. */
function splitCharacterStrings(s: string): Buffer[] {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length <= 255) return [bytes];
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  return out;
}

/** The reply for one question, or null to stay silent. */
export function answer(zone: Zone, request: PacketType): PacketType | null {
  const q = request.questions[0];
  if (!q) return null;
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  let owner = q.name;
  const visited = new Set<string>();
  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const key = owner.toLowerCase().replace(/\.$/, '');
    if (isSilent(zone, key, q.type)) return null;
    const records = zone.records.get(key);
    if (!records) {
      if (!zone.timeouts.has(key)) response.header.rcode = 3;
      break;
    }
    const matching = records.filter((r) => TYPE_CODES[r.type] === q.type);
    if (matching.length > 0) {
      response.answers.push(...matching.map((r) => toResource(owner, r)));
      return response;
    }
    const cname = records.find((r) => r.type === 'CNAME');
    if (!cname || cname.type !== 'CNAME' || visited.has(key)) break;
    visited.add(key);
    response.answers.push(toResource(owner, cname));
    owner = cname.target;
  }
  response.authorities.push({
    name: q.name,
    type: Packet.TYPE.SOA,
    class: 1,
    ttl: NEGATIVE_TTL_S,
    primary: 'ns.conformance.test',
    admin: 'hostmaster.conformance.test',
    serial: 1,
    refresh: 3600,
    retry: 600,
    expiration: 86400,
    minimum: NEGATIVE_TTL_S,
  } as Resource);
  return response;
}

export async function startZoneServer(initial: ZoneEntry[] = []): Promise<DnsWorld> {
  let zone = buildZone(initial);
  const listener = await listenDns((request, send) => {
    let response: PacketType | null;
    try {
      response = answer(zone, request);
    } catch {
      response = Packet.createResponseFromRequest(request);
      response.header.rcode = 2;
    }
    if (response) Promise.resolve().then(() => send(response)).catch(() => undefined);
  });
  return {
    address: listener.server,
    setRecords(records) {
      zone = buildZone(records);
    },
    close: () => listener.stop(),
  };
}
