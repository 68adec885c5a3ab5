// The one table of DNS record types the platform speaks (RFC 1035, 3596, 4034, 6844, 7208), and
// the few other wire codes both ends of a DNS exchange need.
//
// Contract: `RR_TYPE` maps a type's name to its IANA code; `rrTypeName` maps a code back (undefined
// for a type we do not speak). The resolver (@dv/mailsec) and the simulated world's authoritative
// server both read them from here, so the two can never disagree on a code.

export const RR_TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  DS: 43,
  DNSKEY: 48,
  SPF: 99,
  CAA: 257,
} as const;

export type RrType = keyof typeof RR_TYPE;

export const RR_TYPES = Object.keys(RR_TYPE) as RrType[];

/** QTYPE ANY (RFC 1035 3.2.3). */
export const QTYPE_ANY = 255;
/** The EDNS(0) OPT pseudo-record (RFC 6891). */
export const OPT_TYPE = 41;
export const CLASS_IN = 1;
/** QCLASS ANY (RFC 1035 3.2.5). */
export const CLASS_ANY = 255;

export function isRrType(value: string): value is RrType {
  return Object.hasOwn(RR_TYPE, value);
}

const NAME_BY_CODE: ReadonlyMap<number, RrType> = new Map(RR_TYPES.map((name) => [RR_TYPE[name], name]));

/** The name of a type code we speak; undefined for any other code. */
export function rrTypeName(code: number): RrType | undefined {
  return NAME_BY_CODE.get(code);
}
