// RDAP (RFC 9083) domain and IP network objects reduced to the fields whois_lookup reports. Pure.

export interface RegistrationData {
  registrar: string | null;
  registrarIanaId: string | null;
  status: string[];
  /** ISO 8601 timestamps. */
  created: string | null;
  expires: string | null;
  updated: string | null;
  nameservers: string[];
  registrantOrg: string | null;
  registrantCountry: string | null;
  /** Delegation signed (DS at the parent); null when the source does not say. */
  dnssec: boolean | null;
}

export interface NetworkData {
  name: string | null;
  handle: string | null;
  startAddress: string | null;
  endAddress: string | null;
  cidrs: string[];
  country: string | null;
  asns: number[];
  org: string | null;
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/** A jCard property's value: ["vcard", [[name, params, type, value], ...]]. */
function vcardProperty(entity: Json, name: string): { params: Json; value: unknown } | undefined {
  const card = arr(entity.vcardArray)[1];
  for (const p of arr(card)) {
    const prop = arr(p);
    if (prop[0] === name) return { params: obj(prop[1]) ?? {}, value: prop[3] };
  }
  return undefined;
}

function entitiesWithRole(body: Json, role: string): Json[] {
  const out: Json[] = [];
  const walk = (list: unknown, depth: number) => {
    for (const e of arr(list)) {
      const entity = obj(e);
      if (!entity) continue;
      if (arr(entity.roles).includes(role)) out.push(entity);
      // Registrars nest abuse contacts, some registries nest the registrant; two levels suffice.
      if (depth < 2) walk(entity.entities, depth + 1);
    }
  };
  walk(body.entities, 0);
  return out;
}

function entityName(entity: Json): string | null {
  const org = vcardProperty(entity, 'org')?.value;
  const fn = vcardProperty(entity, 'fn')?.value;
  return str(Array.isArray(org) ? org[0] : org) ?? str(fn);
}

function entityCountry(entity: Json): string | null {
  const adr = vcardProperty(entity, 'adr');
  if (!adr) return null;
  const cc = str(adr.params.cc);
  if (cc) return cc.toUpperCase();
  // Without the cc parameter the country name is the 7th address component.
  const parts = arr(adr.value);
  return str(parts[6]);
}

function eventDate(body: Json, action: string): string | null {
  const ev = arr(body.events).map(obj).find((e) => e && e.eventAction === action);
  const date = str(ev?.eventDate);
  if (!date) return null;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? date : new Date(ms).toISOString();
}

export function normalizeRdapDomain(body: unknown): RegistrationData {
  const b = obj(body) ?? {};
  const registrar = entitiesWithRole(b, 'registrar')[0];
  const registrant = entitiesWithRole(b, 'registrant')[0];
  const ianaId = arr(registrar?.publicIds)
    .map(obj)
    .find((p) => p && typeof p.type === 'string' && /iana/i.test(p.type));
  const secure = obj(b.secureDNS);
  return {
    registrar: registrar ? entityName(registrar) : null,
    registrarIanaId: str(ianaId?.identifier),
    status: arr(b.status).filter((s): s is string => typeof s === 'string'),
    created: eventDate(b, 'registration'),
    expires: eventDate(b, 'expiration'),
    updated: eventDate(b, 'last changed'),
    nameservers: arr(b.nameservers)
      .map((n) => str(obj(n)?.ldhName))
      .filter((n): n is string => n !== null)
      .map((n) => n.toLowerCase().replace(/\.$/, '')),
    registrantOrg: registrant ? entityName(registrant) : null,
    registrantCountry: registrant ? entityCountry(registrant) : null,
    dnssec: typeof secure?.delegationSigned === 'boolean' ? secure.delegationSigned : null,
  };
}

export function normalizeRdapIp(body: unknown): NetworkData {
  const b = obj(body) ?? {};
  const org = entitiesWithRole(b, 'registrant')[0];
  const cidrs = arr(b.cidr0_cidrs)
    .map(obj)
    .flatMap((c) => {
      const prefix = str(c?.v4prefix) ?? str(c?.v6prefix);
      return prefix && typeof c?.length === 'number' ? [`${prefix}/${c.length}`] : [];
    });
  return {
    name: str(b.name),
    handle: str(b.handle),
    startAddress: str(b.startAddress),
    endAddress: str(b.endAddress),
    cidrs,
    country: str(b.country),
    asns: arr(b.arin_originas0_originautnums).filter((n): n is number => typeof n === 'number'),
    org: org ? entityName(org) : null,
  };
}
