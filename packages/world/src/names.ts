// Domain-name and IP-address helpers shared by the schema, the DNS server and the RDAP server.
import net from 'node:net';

// Absolute names are stored lower-case without the trailing dot; the root is ''.
export function normalizeName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower === '.' ? '' : lower.replace(/\.$/, '');
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

// Underscore labels are allowed because _dmarc, _domainkey and _mta-sts live in real zones.
export function isValidName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => label.length <= 63 && LABEL.test(label));
}

// Every ancestor of a name (not the root): "a.b.test" -> ["b.test", "test"].
export function ancestors(name: string): string[] {
  const labels = name.split('.');
  const out: string[] = [];
  for (let i = 1; i < labels.length; i += 1) out.push(labels.slice(i).join('.'));
  return out;
}

export function isAtOrBelow(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

export function tldOf(name: string): string {
  const labels = name.split('.');
  return labels[labels.length - 1] ?? '';
}

export function isLoopbackV4(ip: string): boolean {
  return net.isIPv4(ip) && ip.startsWith('127.');
}

/**
 * Where a world's MX hosts may listen: loopback, or 198.18.0.0/15 (RFC 2544's benchmarking range),
 * the addresses of the cluster harness's own network namespaces (infra/src/cluster). Never an
 * address another network could hold.
 */
export function isWorldHostV4(ip: string): boolean {
  return isLoopbackV4(ip) || (net.isIPv4(ip) && /^198\.1[89]\./.test(ip));
}

// Clients report IPv4 peers of dual-stack sockets as ::ffff:a.b.c.d.
export function normalizeIp(ip: string | undefined): string {
  return (ip ?? '').replace(/^::ffff:/i, '').toLowerCase();
}

export interface IpRange {
  version: 4 | 6;
  start: bigint;
  end: bigint;
  prefix: number;
}

export function ipToBigInt(ip: string): { version: 4 | 6; value: bigint } | undefined {
  if (net.isIPv4(ip)) {
    const value = ip.split('.').reduce((acc, octet) => (acc << 8n) + BigInt(Number(octet)), 0n);
    return { version: 4, value };
  }
  if (!net.isIPv6(ip) || ip.includes('.')) return undefined;
  const [head = '', tail] = ip.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return undefined;
  const value = groups.reduce((acc, group) => (acc << 16n) + BigInt(parseInt(group, 16)), 0n);
  return { version: 6, value };
}

export function bigIntToIp(value: bigint, version: 4 | 6): string {
  if (version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return compressV6(groups);
}

// RFC 5952: the longest run (>= 2) of zero groups becomes "::".
function compressV6(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== '0') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestLength < 2) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

export function parseCidr(cidr: string): IpRange | undefined {
  const [address = '', prefixText] = cidr.split('/');
  const parsed = ipToBigInt(address);
  if (!parsed || prefixText === undefined || !/^\d+$/.test(prefixText)) return undefined;
  const bits = parsed.version === 4 ? 32n : 128n;
  const prefix = Number(prefixText);
  if (prefix > Number(bits)) return undefined;
  const hostBits = bits - BigInt(prefix);
  const start = (parsed.value >> hostBits) << hostBits;
  return { version: parsed.version, start, end: start + (1n << hostBits) - 1n, prefix };
}

export function rangeContains(range: IpRange, ip: string): boolean {
  const parsed = ipToBigInt(ip);
  return parsed !== undefined && parsed.version === range.version && parsed.value >= range.start && parsed.value <= range.end;
}
