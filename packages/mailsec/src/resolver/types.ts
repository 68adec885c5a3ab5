// The resolver's data model: record types, typed answers and the result of one lookup.
// Everything here is plain data so results can be cached, logged and sent over the wire as-is.

// The record-type table is @dv/net's (the simulated world's DNS server reads the same one).
import type { RrType } from '@dv/net';

export { RR_TYPE, RR_TYPES, isRrType, type RrType } from '@dv/net';

type Base = { name: string; ttl: number };

export type ARecord = Base & { type: 'A'; address: string };
export type AaaaRecord = Base & { type: 'AAAA'; address: string };
export type MxRecord = Base & { type: 'MX'; priority: number; exchange: string };
export type NsRecord = Base & { type: 'NS'; host: string };
/** TXT and SPF keep their character-strings apart: joining is the reader's choice (`txtJoin`). */
export type TxtRecord = Base & { type: 'TXT'; strings: string[] };
export type SpfRrRecord = Base & { type: 'SPF'; strings: string[] };
export type SoaRecord = Base & {
  type: 'SOA';
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
};
export type CnameRecord = Base & { type: 'CNAME'; target: string };
export type PtrRecord = Base & { type: 'PTR'; target: string };
export type CaaRecord = Base & { type: 'CAA'; flags: number; tag: string; value: string };
export type DnskeyRecord = Base & { type: 'DNSKEY'; flags: number; protocol: number; algorithm: number; keyTag: number; publicKey: string };
export type DsRecord = Base & { type: 'DS'; keyTag: number; algorithm: number; digestType: number; digest: string };
export type SrvRecord = Base & { type: 'SRV'; priority: number; weight: number; port: number; target: string };

export type Rr =
  | ARecord
  | AaaaRecord
  | MxRecord
  | NsRecord
  | TxtRecord
  | SpfRrRecord
  | SoaRecord
  | CnameRecord
  | PtrRecord
  | CaaRecord
  | DnskeyRecord
  | DsRecord
  | SrvRecord;

/** The record shape for one type, e.g. `RrOf<'MX'>`. */
export type RrOf<T extends RrType> = Extract<Rr, { type: T }>;

/** Joins the character-strings of a TXT/SPF record with no separator (RFC 7208 3.3). */
export function txtJoin(rr: TxtRecord | SpfRrRecord): string {
  return rr.strings.join('');
}

/**
 * Outcome of one lookup. NOERROR always carries at least one answer; an empty NOERROR is NODATA.
 * TIMEOUT means no usable reply after every attempt; ERROR is a local failure (bad name, closed
 * resolver, unreadable reply) and, like SERVFAIL, must be treated as a temporary failure.
 */
export const RCODE = {
  NOERROR: 'NOERROR',
  NODATA: 'NODATA',
  NXDOMAIN: 'NXDOMAIN',
  SERVFAIL: 'SERVFAIL',
  REFUSED: 'REFUSED',
  FORMERR: 'FORMERR',
  NOTIMP: 'NOTIMP',
  TIMEOUT: 'TIMEOUT',
  ERROR: 'ERROR',
} as const;

export type Rcode = (typeof RCODE)[keyof typeof RCODE];

export interface ResolveResult<T extends RrType = RrType> {
  name: string;
  type: T;
  rcode: Rcode;
  /** Records of the asked type, owned by the end of any CNAME chain. */
  answers: RrOf<T>[];
  /** CNAME targets followed from `name`, in order (empty when none). */
  cnames: string[];
  /** The upstream set the AD bit: it validated the answer with DNSSEC. */
  authenticated: boolean;
  /** Seconds this result stays valid (remaining seconds when served from cache). */
  ttl: number;
  fromCache: boolean;
  /** Human-readable cause for TIMEOUT / ERROR / SERVFAIL results. */
  error?: string;
}

/** The one capability the SPF engine (and anything else) needs; tests may supply their own. */
export interface Resolver {
  resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>>;
}

/** True for results that mean "the DNS did not answer properly" (RFC 7208: temperror). */
export function isDnsFailure(rcode: Rcode): boolean {
  return rcode !== 'NOERROR' && rcode !== 'NODATA' && rcode !== 'NXDOMAIN';
}
