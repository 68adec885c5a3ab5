// The spec's WHOIS record from a lookup (mailsec's lookupWhois) and, for RDAP, the answer's body
// (for the contacts mailsec's summary leaves out). Pure; the schedule is here too.
import type { WhoisDoc } from '@dv/contracts';
import type { WhoisLookup } from '@dv/mailsec';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** A jCard property's value (RFC 7095: ["vcard", [[name, params, type, value]...]]). */
function vcard(entity: Json | undefined, name: string): { params: Json; value: unknown } | undefined {
  for (const p of arr(arr(entity?.vcardArray)[1])) {
    const prop = arr(p);
    if (prop[0] === name) return { params: obj(prop[1]) ?? {}, value: prop[3] };
  }
  return undefined;
}

function withRole(list: unknown, role: string, depth = 0): Json | undefined {
  for (const e of arr(list)) {
    const entity = obj(e);
    if (!entity) continue;
    if (arr(entity.roles).includes(role)) return entity;
    // Registrars nest their abuse contact; two levels are enough.
    const inner = depth < 2 ? withRole(entity.entities, role, depth + 1) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

const tel = (entity: Json | undefined): string | null => {
  const v = str(vcard(entity, 'tel')?.value);
  return v ? v.replace(/^tel:/i, '') : null;
};
const email = (entity: Json | undefined): string | null => str(vcard(entity, 'email')?.value);

/** RDAP status values (RFC 8056: "client transfer prohibited") as EPP codes (clientTransferProhibited). */
export function eppStatus(status: string): string {
  const words = status.trim().split(/\s+/);
  if (words.length === 1) return words[0] as string;
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : `${w.charAt(0).toUpperCase()}${w.slice(1).toLowerCase()}`)).join('');
}

const PRIVACY = /redacted|privacy|private|proxy|withheld|data protected|not disclosed|gdpr/i;

export function whoisRecord(domain: string, w: WhoisLookup, rdapBody: unknown, now: Date, nextFetchAt: Date): WhoisDoc {
  const reg = w.registration;
  const body = w.source === 'rdap' ? obj(rdapBody) : undefined;
  const registrant = withRole(body?.entities, 'registrant');
  const registrar = withRole(body?.entities, 'registrar');
  const abuse = registrar ? withRole(registrar.entities, 'abuse') : withRole(body?.entities, 'abuse');
  const registrantName = str(vcard(registrant, 'fn')?.value);
  const adr = vcard(registrant, 'adr');
  const registrantState = str(arr(adr?.value)[4]);
  // RDAP servers mark what they left out (RFC 9537 "redacted"); port 43 and older servers say so in the names.
  const privacy =
    arr(body?.redacted).length > 0 || [registrantName, reg?.registrantOrg ?? null].some((v) => v !== null && PRIVACY.test(v)) || (w.registered === true && registrant === undefined && w.source === 'rdap');
  const date = (iso: string | null | undefined) => (iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso) : null);
  return {
    _id: domain,
    domain_name: domain,
    registrar: reg?.registrar ?? null,
    name_servers: reg && reg.nameservers.length > 0 ? [...new Set(reg.nameservers)].sort().join(', ') : null,
    registrant_name: registrantName,
    registrant_org: reg?.registrantOrg ?? null,
    registrant_country: reg?.registrantCountry ?? null,
    registrant_state: registrantState,
    contact_email: email(registrant),
    registrar_abuse_email: email(abuse),
    registrar_abuse_phone: tel(abuse),
    dnssec_status: reg?.dnssec === true ? 'signed' : reg?.dnssec === false ? 'unsigned' : null,
    whois_status: w.registered === true ? 'registered' : w.registered === false ? 'not_registered' : 'unknown',
    whois_server: w.server,
    registration_date: date(reg?.created),
    expiry_date: date(reg?.expires),
    updated_date: date(reg?.updated),
    privacy_enabled: privacy,
    domain_statuses: (reg?.status ?? []).map(eppStatus),
    ip_geolocation: {},
    fetched_at: now,
    next_fetch_at: nextFetchAt,
    lookup_status: 'fetched',
    lookup_detail: null,
    last_attempt_at: now,
  };
}

export interface RegistrationSchedule {
  refreshIntervalS: number;
  nearExpiryDays: number;
  nearExpiryIntervalS: number;
}

/**
 * The next lookup: every refreshIntervalS (7 days); every nearExpiryIntervalS (daily) once the
 * expiry date is within nearExpiryDays or past (a renewal or a drop shows up the next day); and a
 * domain entering that window is looked at on the day it enters, not up to 7 days later.
 */
export function nextFetchAt(now: Date, expiry: Date | null, s: RegistrationSchedule): Date {
  const regular = now.getTime() + s.refreshIntervalS * 1000;
  if (expiry === null) return new Date(regular);
  const windowStart = expiry.getTime() - s.nearExpiryDays * 86_400_000;
  if (now.getTime() >= windowStart) return new Date(now.getTime() + s.nearExpiryIntervalS * 1000);
  return new Date(Math.min(regular, windowStart));
}
