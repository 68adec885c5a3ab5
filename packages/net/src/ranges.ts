// Special-purpose address ranges, once for the whole platform.
//
// Contract: two readings of one table.
// - `classifyAddress` is the SSRF deny list: an address is 'public' (may be reached by a request
//   we make on a user's behalf) only when it falls in none of the ranges, and for IPv6 only inside
//   global unicast (2000::/3). Forms that embed an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96,
//   6to4) are judged by the embedded address, because that is where the packets end up. Cloud
//   metadata endpoints are named first, so 169.254.169.254 reads as cloud_metadata, not link_local.
// - `isSpecialPurposeIp` is the IANA special-purpose registries alone: true for an address no public
//   registry or DNSBL can say anything useful about (every embedding form counts as special).
// Only strict address text is accepted (dotted quad, IPv6 with optional brackets): URL parsing and
// DNS answers give nothing else, and `127.1` or `0x7f.0.0.1` are 'invalid' here.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressRange =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link_local'
  | 'cloud_metadata'
  | 'unique_local'
  | 'site_local'
  | 'multicast'
  | 'documentation'
  | 'benchmarking'
  | 'tunnel'
  | 'nat64_local'
  | 'reserved';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
type Row = readonly [Cidr, AddressRange];
const rows = (table: ReadonlyArray<readonly [string, AddressRange]>): Row[] => table.map(([c, name]) => [ipaddr.parseCIDR(c), name] as const);

/** IANA IPv4 Special-Purpose Address Registry, ordered: the first match names the range. */
const IANA_V4 = rows([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (Oracle Cloud metadata 192.0.0.192 lives here)
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes 255.255.255.255
]);

/** IANA IPv6 Special-Purpose Address Registry, less the forms that embed IPv4 (below). */
const IANA_V6 = rows([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'nat64_local'], // local-use NAT64 (RFC 8215): the mapping is unknowable
  ['100::/64', 'reserved'], // discard-only
  ['2001::/32', 'tunnel'], // Teredo: the real endpoint is hidden in the address
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'reserved'], // IETF protocol assignments
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['ff00::/8', 'multicast'],
]);

/** Host-local services at addresses that look ordinary: never reachable, whatever the registry says. */
const METADATA_V4 = rows([
  ['100.100.100.200/32', 'cloud_metadata'], // Alibaba Cloud metadata, inside CGNAT space
  ['169.254.169.254/32', 'cloud_metadata'], // AWS, GCP, Azure, OpenStack metadata
  ['168.63.129.16/32', 'cloud_metadata'], // Azure wire server: a public-looking address that is host-local
]);
const METADATA_V6 = rows([['fd00:ec2::254/128', 'cloud_metadata']]); // AWS IMDS over IPv6, inside ULA space

/** IPv6 forms carrying an IPv4 address, with the byte offset where it sits. */
const EMBEDDING_V6: ReadonlyArray<readonly [Cidr, number]> = [
  [ipaddr.parseCIDR('::ffff:0:0/96'), 12], // IPv4-mapped
  [ipaddr.parseCIDR('64:ff9b::/96'), 12], // NAT64 well-known prefix
  [ipaddr.parseCIDR('2002::/16'), 2], // 6to4
];
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const firstMatch = (addr: ipaddr.IPv4 | ipaddr.IPv6, table: Row[]): AddressRange | null => {
  for (const [range, name] of table) if (addr.kind() === range[0].kind() && addr.match(range)) return name;
  return null;
};

function classifyV4(addr: ipaddr.IPv4): AddressRange {
  return firstMatch(addr, METADATA_V4) ?? firstMatch(addr, IANA_V4) ?? 'public';
}

function classifyV6(addr: ipaddr.IPv6): AddressRange {
  for (const [range, offset] of EMBEDDING_V6) {
    if (addr.match(range)) return classifyV4(new ipaddr.IPv4(addr.toByteArray().slice(offset, offset + 4)));
  }
  return firstMatch(addr, METADATA_V6) ?? firstMatch(addr, IANA_V6) ?? (addr.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved');
}

/** Parses strict address text; undefined for anything else (including a zone id such as `%eth0`). */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return undefined;
  try {
    if (family === 4) return ipaddr.IPv4.parse(bare);
    // ipaddr.js reads a dotted tail (`::127.0.0.1`) as IPv4-mapped whatever the prefix; the URL
    // serializer's canonical form (`::7f00:1`) has no dotted tail, so the prefix decides.
    return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

/** The range an IP address belongs to; 'public' when a request on a user's behalf may reach it. */
export function classifyAddress(ip: string): AddressRange {
  const addr = parseAddress(ip);
  if (addr === undefined) return 'invalid';
  return addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
}

/** Loopback in either family, including ::ffff:127.x (the one range tests may be allowed to reach). */
export function isLoopbackAddress(ip: string): boolean {
  return classifyAddress(ip) === 'loopback';
}

/**
 * True for an address in an IANA special-purpose block (IPv6 embedding forms included), false for
 * an ordinary one and for text that is no IP address at all. An IPv6 text `isIP` accepts but that
 * has no canonical form (a zone id) names an interface of this host, so it is special.
 */
export function isSpecialPurposeIp(ip: string): boolean {
  if (isIP(ip) === 0) return false;
  const addr = parseAddress(ip);
  if (addr === undefined) return true;
  if (addr.kind() === 'ipv4') return firstMatch(addr, IANA_V4) !== null;
  const v6 = addr as ipaddr.IPv6;
  return EMBEDDING_V6.some(([range]) => v6.match(range)) || firstMatch(v6, IANA_V6) !== null;
}
