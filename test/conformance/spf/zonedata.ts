// Turns a scenario's `zonedata` (pyspf YAML) into a neutral record list that any authoritative
// test server can load. The shapes follow the simulated internet's DNS records (@dv/world:
// `{name, type, ttl, ...data}`), so handing them to its `setRecords` needs no translation.

export type ZoneRecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'SPF' | 'PTR' | 'CNAME';

export type ZoneRecord =
  | { name: string; type: 'A' | 'AAAA'; ttl: number; address: string }
  | { name: string; type: 'MX'; ttl: number; priority: number; exchange: string }
  | { name: string; type: 'TXT' | 'SPF'; ttl: number; text: string | string[] }
  | { name: string; type: 'PTR' | 'CNAME'; ttl: number; target: string };

/**
 * Queries for `name` get no reply at all, except for the types in `exceptTypes`: pyspf's TIMEOUT
 * entry only times out a type none of whose records were listed before it.
 */
export interface TimeoutMarker {
  name: string;
  timeout: true;
  exceptTypes?: ZoneRecordType[];
}

export type ZoneEntry = ZoneRecord | TimeoutMarker;

export function isTimeoutMarker(e: ZoneEntry): e is TimeoutMarker {
  return 'timeout' in e;
}

export const ZONE_TTL_S = 300;

type YamlEntry = string | Record<string, unknown>;

/**
 * pyspf's rules (test/testspf.py): entries keep their order; `TXT: NONE` publishes nothing but
 * stops TXT generation; a name with no TXT entry at all gets a TXT copy of each SPF entry,
 * listed after everything else; a list value is one record of several strings.
 */
export function zonedataToRecords(zonedata: Record<string, YamlEntry[] | null | undefined>): ZoneEntry[] {
  const out: ZoneEntry[] = [];
  for (const [rawName, entries] of Object.entries(zonedata)) {
    const name = rawName.replace(/\.$/, '');
    const list = entries ?? [];
    const hasTxt = list.some((e) => typeof e === 'object' && 'TXT' in e);
    const generated: ZoneRecord[] = [];
    const seenTypes = new Set<ZoneRecordType>();
    for (const entry of list) {
      if (entry === 'TIMEOUT') {
        out.push({ name, timeout: true, ...(seenTypes.size > 0 ? { exceptTypes: [...seenTypes] } : {}) });
        continue;
      }
      if (typeof entry !== 'object' || entry === null) throw new Error(`${name}: unsupported zonedata entry ${JSON.stringify(entry)}`);
      for (const [type, value] of Object.entries(entry)) {
        if (value === 'NONE') continue;
        const record = toRecord(name, type, value);
        out.push(record);
        seenTypes.add(record.type);
        if (record.type === 'SPF' && !hasTxt) generated.push({ ...record, type: 'TXT' });
      }
    }
    out.push(...generated);
  }
  return out;
}

function toRecord(name: string, type: string, value: unknown): ZoneRecord {
  const ttl = ZONE_TTL_S;
  switch (type) {
    case 'A':
    case 'AAAA':
      return { name, type, ttl, address: String(value) };
    case 'MX': {
      const [priority, exchange] = value as [number, string];
      // pyspf writes a null MX (RFC 7505) as an empty exchange; "." is the usual spelling.
      return { name, type, ttl, priority: Number(priority), exchange: exchange ? String(exchange) : '.' };
    }
    case 'TXT':
    case 'SPF':
      return { name, type, ttl, text: Array.isArray(value) ? value.map(String) : String(value) };
    case 'PTR':
    case 'CNAME':
      return { name, type, ttl, target: String(value) };
    default:
      throw new Error(`${name}: unsupported record type ${type}`);
  }
}
