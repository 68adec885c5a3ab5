import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Which addresses a webhook may reach. The rule is an allow-list in spirit: an address is public
// only when it falls in none of the ranges below, and for IPv6 only inside global unicast
// (2000::/3). Forms that embed an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) are judged
// by the embedded address, because that is where the packets end up. The table is ordered: the
// first match names the range (so 169.254.169.254 reads as cloud_metadata, not link_local).

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
const cidr = (text: string): Cidr => ipaddr.parseCIDR(text);

const V4_RANGES: ReadonlyArray<readonly [Cidr, AddressRange]> = (
  [
    ['0.0.0.0/8', 'unspecified'],
    ['10.0.0.0/8', 'private'],
    ['100.100.100.200/32', 'cloud_metadata'], // Alibaba Cloud metadata, inside CGNAT space
    ['100.64.0.0/10', 'cgnat'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.169.254/32', 'cloud_metadata'], // AWS, GCP, Azure, OpenStack metadata
    ['169.254.0.0/16', 'link_local'],
    ['168.63.129.16/32', 'cloud_metadata'], // Azure wire server: a public-looking address that is host-local
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
  ] as const
).map(([c, name]) => [cidr(c), name] as const);

const V6_RANGES: ReadonlyArray<readonly [Cidr, AddressRange]> = (
  [
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['fd00:ec2::254/128', 'cloud_metadata'], // AWS IMDS over IPv6, inside ULA space
    ['64:ff9b:1::/48', 'nat64_local'], // local-use NAT64 (RFC 8215): the mapping is unknowable
    ['2001::/32', 'tunnel'], // Teredo: the real endpoint is hidden in the address
    ['2001:db8::/32', 'documentation'],
    ['2001::/23', 'reserved'], // IETF protocol assignments
    ['3fff::/20', 'documentation'],
    ['fc00::/7', 'unique_local'],
    ['fe80::/10', 'link_local'],
    ['fec0::/10', 'site_local'],
    ['ff00::/8', 'multicast'],
  ] as const
).map(([c, name]) => [cidr(c), name] as const);

const GLOBAL_UNICAST_V6 = cidr('2000::/3');
const MAPPED_V4 = cidr('::ffff:0:0/96');
const NAT64_WKP = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');

function classifyV4(addr: ipaddr.IPv4): AddressRange {
  for (const [range, name] of V4_RANGES) if (addr.match(range)) return name;
  return 'public';
}

function embeddedV4(bytes: number[], offset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4));
}

function classifyV6(addr: ipaddr.IPv6): AddressRange {
  const bytes = addr.toByteArray();
  if (addr.match(MAPPED_V4) || addr.match(NAT64_WKP)) return classifyV4(embeddedV4(bytes, 12));
  if (addr.match(SIX_TO_FOUR)) return classifyV4(embeddedV4(bytes, 2));
  for (const [range, name] of V6_RANGES) if (addr.match(range)) return name;
  return addr.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

/**
 * The range an IP address (dotted quad or IPv6 text, no brackets) belongs to; 'public' when it may
 * be reached. Only strict forms are accepted: URL parsing and DNS answers give nothing else.
 */
export function classifyAddress(ip: string): AddressRange {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'invalid';
  try {
    if (family === 4) return classifyV4(ipaddr.IPv4.parse(bare));
    // ipaddr.js reads a dotted tail (`::127.0.0.1`) as IPv4-mapped whatever the prefix; the URL
    // serializer's canonical form (`::7f00:1`) has no dotted tail, so the prefix decides.
    const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    return classifyV6(ipaddr.IPv6.parse(canonical));
  } catch {
    return 'invalid';
  }
}

/** Loopback in either family, including ::ffff:127.x (the one range tests may be allowed to reach). */
export function isLoopbackAddress(ip: string): boolean {
  return classifyAddress(ip) === 'loopback';
}
