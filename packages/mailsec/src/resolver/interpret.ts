// Pure reply interpretation: from a decoded message to a typed result (or "ask for the CNAME
// target"), including the TTL a cache should keep it for.
import type { DecodedMessage } from './wire.ts';
import type { Rcode, ResolveResult, Rr, RrType } from './types.ts';

export interface InterpretSettings {
  negativeTtlS: number;
  maxTtlS: number;
}

export type Interpretation =
  | { kind: 'result'; result: ResolveResult }
  | { kind: 'chase'; target: string; cnames: string[]; ttl: number };

const RCODE_NAMES: Record<number, Rcode> = { 0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED' };

export function failure(name: string, type: RrType, rcode: Rcode, error: string): ResolveResult {
  return { name, type, rcode, answers: [], cnames: [], authenticated: false, ttl: 0, fromCache: false, error };
}

export function interpretReply(message: DecodedMessage, qname: string, type: RrType, settings: InterpretSettings): Interpretation {
  const wire = RCODE_NAMES[message.rcode] ?? 'ERROR';
  if (wire !== 'NOERROR' && wire !== 'NXDOMAIN') {
    return { kind: 'result', result: failure(qname, type, wire, `upstream answered ${wire === 'ERROR' ? `rcode ${message.rcode}` : wire}`) };
  }
  // Follow the CNAME chain inside the answer section (RFC 1034 3.6.2), guarding against loops.
  const cnames: string[] = [];
  const chainRecords: Rr[] = [];
  let owner = qname.toLowerCase();
  let answers: Rr[];
  for (;;) {
    answers = message.answers.filter((rr) => rr.type === type && rr.name.toLowerCase() === owner);
    if (answers.length > 0 || type === 'CNAME') break;
    const link = message.answers.find((rr) => rr.type === 'CNAME' && rr.name.toLowerCase() === owner);
    if (!link || link.type !== 'CNAME') break;
    const target = link.target.toLowerCase();
    if (target === qname.toLowerCase() || cnames.some((c) => c.toLowerCase() === target)) {
      return { kind: 'result', result: failure(qname, type, 'SERVFAIL', 'CNAME loop') };
    }
    cnames.push(link.target);
    chainRecords.push(link);
    owner = target;
  }
  const chainTtl = Math.min(settings.maxTtlS, ...chainRecords.map((r) => r.ttl));
  if (wire === 'NOERROR' && answers.length === 0 && cnames.length > 0) {
    const target = cnames[cnames.length - 1] as string;
    // A chain that ends in a name the reply says nothing about must be chased; an SOA in the
    // authority section means the server answered for the target and it simply has no data.
    if (!message.authorities.some((rr) => rr.type === 'SOA')) return { kind: 'chase', target, cnames, ttl: chainTtl };
  }
  const rcode: Rcode = wire === 'NXDOMAIN' ? 'NXDOMAIN' : answers.length > 0 ? 'NOERROR' : 'NODATA';
  const ttl = answers.length > 0 ? Math.min(chainTtl, ...answers.map((r) => r.ttl)) : Math.min(chainTtl, negativeTtl(message, settings));
  return {
    kind: 'result',
    result: {
      name: qname,
      type,
      rcode,
      answers: answers as ResolveResult['answers'],
      cnames,
      authenticated: message.ad,
      ttl: Math.max(0, Math.min(settings.maxTtlS, ttl)),
      fromCache: false,
    },
  };
}

/** RFC 2308 5: a negative answer lives for the lesser of the SOA's own TTL and its MINIMUM. */
function negativeTtl(message: DecodedMessage, settings: InterpretSettings): number {
  const soa = message.authorities.find((rr) => rr.type === 'SOA');
  if (!soa || soa.type !== 'SOA') return settings.negativeTtlS;
  return Math.min(soa.ttl, soa.minimum);
}

export type NormalizedName = { ok: true; name: string } | { ok: false; error: string };

/** Checks a query name against RFC 1035 limits; strips one trailing dot ("" is the root). */
export function normalizeQueryName(input: string): NormalizedName {
  const name = input.endsWith('.') ? input.slice(0, -1) : input;
  if (name === '') return { ok: true, name: '' };
  if (name.length > 253) return { ok: false, error: 'name longer than 253 characters' };
  // The codec writes one byte per character; non-ASCII names must arrive already in A-label form.
  for (let i = 0; i < name.length; i++) {
    if (name.charCodeAt(i) > 0x7f) return { ok: false, error: 'name is not ASCII (use the A-label form)' };
  }
  // Label lengths by scanning for dots (no split: this runs once per lookup).
  let labelStart = 0;
  for (let i = 0; i <= name.length; i++) {
    if (i < name.length && name.charCodeAt(i) !== 0x2e) continue;
    if (i === labelStart) return { ok: false, error: 'empty label in name' };
    if (i - labelStart > 63) return { ok: false, error: 'label longer than 63 characters' };
    labelStart = i + 1;
  }
  return { ok: true, name };
}
