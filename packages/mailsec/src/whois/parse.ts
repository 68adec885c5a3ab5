// The common "Key: value" WHOIS format reduced to the same fields as RDAP. Registries name their
// keys differently, so each field lists the keys seen in the wild (lower-cased, first match wins).
import type { RegistrationData } from './rdap.ts';

const KEYS = {
  registrar: ['registrar', 'registrar name', 'sponsoring registrar', 'registrar organization', 'registrar-name'],
  registrarIanaId: ['registrar iana id'],
  status: ['domain status', 'status', 'state', 'registration status'],
  created: ['creation date', 'created', 'created on', 'registered on', 'registered', 'registration time', 'domain registration date', 'created date'],
  expires: ['registry expiry date', 'registrar registration expiration date', 'expiration date', 'expiry date', 'expires', 'expires on', 'paid-till', 'renewal date', 'expire date'],
  updated: ['updated date', 'last updated', 'last modified', 'changed', 'last-update', 'modified', 'last update'],
  nameservers: ['name server', 'nameserver', 'nserver', 'name servers', 'nameservers'],
  registrantOrg: ['registrant organization', 'registrant organisation', 'registrant', 'org', 'organisation'],
  registrantCountry: ['registrant country', 'registrant country code', 'country'],
  dnssec: ['dnssec', 'signed'],
} as const;

/** Phrases registries use for a name that is not registered. */
const NOT_FOUND = /(?:^|\n)\s*(?:no match|not found|no data found|no entries found|status:\s*(?:free|available)|domain not found|the queried object does not exist|no object found)/i;

export interface ParsedWhois extends RegistrationData {
  registered: boolean;
  /** whois.iana.org answers name the registry's own server. */
  referral: string | null;
}

export function parseWhoisText(text: string): ParsedWhois {
  const fields = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (/^\s*[%#>]/.test(line)) continue;
    const m = /^\s*([A-Za-z][A-Za-z0-9 ./()_-]{0,60}?)\s*:\s*(.*?)\s*$/.exec(line);
    if (!m || m[2] === '') continue;
    const key = (m[1] ?? '').toLowerCase();
    const list = fields.get(key) ?? [];
    list.push(m[2] as string);
    fields.set(key, list);
  }
  const all = (names: readonly string[]): string[] => names.flatMap((n) => fields.get(n) ?? []);
  const first = (names: readonly string[]): string | null => {
    for (const n of names) {
      const v = fields.get(n)?.[0];
      if (v) return v;
    }
    return null;
  };
  const dnssecText = first(KEYS.dnssec);
  const status = [...new Set(all(KEYS.status).map((s) => s.replace(/\s+https?:\/\/\S+$/, '').trim()))];
  const registered = !NOT_FOUND.test(text) && (fields.size > 0 && (first(KEYS.created) !== null || first(KEYS.registrar) !== null || all(KEYS.nameservers).length > 0));
  return {
    registered,
    referral: first(['refer', 'whois']),
    registrar: first(KEYS.registrar),
    registrarIanaId: first(KEYS.registrarIanaId),
    status,
    created: isoDate(first(KEYS.created)),
    expires: isoDate(first(KEYS.expires)),
    updated: isoDate(first(KEYS.updated)),
    nameservers: [...new Set(all(KEYS.nameservers).map((n) => (n.split(/\s+/)[0] ?? '').toLowerCase().replace(/\.$/, '')).filter((n) => n !== ''))],
    registrantOrg: first(KEYS.registrantOrg),
    registrantCountry: first(KEYS.registrantCountry)?.toUpperCase() ?? null,
    dnssec: dnssecText === null ? null : /^(?:signed|yes|true|signeddelegation|1)/i.test(dnssecText),
  };
}

/** ISO 8601 when the date parses (2024-01-31, 2024-01-31T12:00:00Z, 2024.01.31, 31.01.2024), else as written. */
function isoDate(text: string | null): string | null {
  if (text === null) return null;
  let t = text.trim();
  const dotted = /^(\d{4})[./](\d{2})[./](\d{2})\b/.exec(t);
  const european = /^(\d{2})[./-](\d{2})[./-](\d{4})\b/.exec(t);
  if (dotted) t = `${dotted[1]}-${dotted[2]}-${dotted[3]}${t.slice(10)}`;
  else if (european) t = `${european[3]}-${european[2]}-${european[1]}`;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}
