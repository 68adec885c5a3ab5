// One written form per scan field (docs/portfolio-scanner.md "Field formats"). Change history
// compares these strings, so every list is sorted by its own content and never by the order the
// DNS answered in: an unchanged zone must give an identical string, scan after scan.
import { isIP } from 'node:net';

/** Separator of short items (hosts, addresses, names). */
export const LIST_SEPARATOR = ', ';
/** Separator of free-text records (TXT, several SPF/DMARC/BIMI records): one record per line. */
export const RECORD_SEPARATOR = '\n';

/** Host names are written lower-case without the trailing dot; the root (null MX) stays ".". */
export function hostName(name: string): string {
  const lower = name.toLowerCase();
  return lower === '.' ? '.' : lower.replace(/\.$/, '') || '.';
}

/** Plain code-point order: unlike localeCompare it does not depend on the process's locale. */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorted, de-duplicated, joined; null when there is nothing. */
export function joinSorted(items: Iterable<string>, separator = LIST_SEPARATOR): string | null {
  const list = [...new Set(items)].sort(byCodePoint);
  return list.length > 0 ? list.join(separator) : null;
}

/** "10 mx1.example.com, 20 mx2.example.com": by preference, then host name. */
export function formatMx(records: readonly { priority: number; exchange: string }[]): string | null {
  const rows = [...new Map(records.map((r) => [`${r.priority} ${hostName(r.exchange)}`, { priority: r.priority, host: hostName(r.exchange) }])).values()];
  rows.sort((a, b) => a.priority - b.priority || byCodePoint(a.host, b.host));
  return rows.length > 0 ? rows.map((r) => `${r.priority} ${r.host}`).join(LIST_SEPARATOR) : null;
}

/** TXT records: each record's character-strings joined with nothing (RFC 7208 3.3), records sorted, one per line. */
export function formatRecords(records: readonly string[]): string | null {
  return joinSorted(records, RECORD_SEPARATOR);
}

/** An address in one canonical spelling: IPv4 as is, IPv6 lower-case and compressed (RFC 5952). */
export function canonicalIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  // URL parsing applies RFC 5952 compression and lower-casing.
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

/** Numeric order of addresses: IPv4 before IPv6, each by value. */
export function compareIps(a: string, b: string): number {
  const ka = ipSortKey(a);
  const kb = ipSortKey(b);
  return byCodePoint(ka, kb);
}

function ipSortKey(ip: string): string {
  if (isIP(ip) === 4) return `4${ip.split('.').map((o) => o.padStart(3, '0')).join('.')}`;
  if (isIP(ip) === 6) return `6${expandIpv6(ip)}`;
  return `9${ip}`;
}

function expandIpv6(ip: string): string {
  const canonical = canonicalIp(ip);
  const [head = '', tail] = canonical.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  // A dotted IPv4 tail counts as two groups.
  const groups = [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/** Addresses, canonical and in numeric order. */
export function sortIps(ips: Iterable<string>): string[] {
  return [...new Set([...ips].map(canonicalIp))].sort(compareIps);
}

export function formatIps(ips: Iterable<string>): string | null {
  const list = sortIps(ips);
  return list.length > 0 ? list.join(LIST_SEPARATOR) : null;
}

/** SOA in zone-file order: "mname rname serial refresh retry expire minimum". */
export function formatSoa(soa: { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number } | undefined): string | null {
  if (!soa) return null;
  return [hostName(soa.mname), hostName(soa.rname), soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum].join(' ');
}

/** SRV as "<service> <priority> <weight> <port> <target>", by service then the numbers then target. */
export function formatSrv(rows: readonly { service: string; priority: number; weight: number; port: number; target: string }[]): string | null {
  const sorted = [...rows].sort(
    (a, b) => byCodePoint(a.service, b.service) || a.priority - b.priority || a.weight - b.weight || a.port - b.port || byCodePoint(hostName(a.target), hostName(b.target)),
  );
  const text = [...new Set(sorted.map((r) => `${r.service} ${r.priority} ${r.weight} ${r.port} ${hostName(r.target)}`))];
  return text.length > 0 ? text.join(LIST_SEPARATOR) : null;
}

/** PTR as "<address> <name>", by address then name. */
export function formatPtr(rows: readonly { ip: string; name: string }[]): string | null {
  const sorted = [...rows].map((r) => ({ ip: canonicalIp(r.ip), name: hostName(r.name) })).sort((a, b) => compareIps(a.ip, b.ip) || byCodePoint(a.name, b.name));
  const text = [...new Set(sorted.map((r) => `${r.ip} ${r.name}`))];
  return text.length > 0 ? text.join(LIST_SEPARATOR) : null;
}
