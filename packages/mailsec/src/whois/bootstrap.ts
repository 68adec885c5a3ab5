// RDAP bootstrap (RFC 9224): which RDAP server answers for a TLD or an address block. The engine
// ships a subset of IANA's files (data/rdap-*.json); with RDAP_BOOTSTRAP_URL set it fetches the
// domain file from there and the ipv4/ipv6 files from the same directory (IANA publishes
// dns.json, ipv4.json and ipv6.json side by side), refetching after `refreshMs`. A failed fetch
// keeps the data it had and is tried again after `retryMs`, not on every lookup (three requests
// each: a bulk registration refresh would hammer an unreachable bootstrap host). The hosts of every
// base URL known are the only hosts RDAP requests go to.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { fetchJson, type FetchLimits } from './http.ts';

type Services = [string[], string[]][];

interface BootstrapFile {
  services: Services;
}

interface Tables {
  dns: Services;
  ipv4: Services;
  ipv6: Services;
}

function shipped(name: string): Services {
  const text = readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8');
  return (JSON.parse(text) as BootstrapFile).services;
}

export const SHIPPED_BOOTSTRAP: Readonly<Tables> = {
  dns: shipped('rdap-dns.json'),
  ipv4: shipped('rdap-ipv4.json'),
  ipv6: shipped('rdap-ipv6.json'),
};

export interface RdapBootstrapOptions {
  /** The dns.json URL; absent = shipped data only. */
  url?: string;
  refreshMs: number;
  /** After a failed fetch of the domain file, how long lookups use the data already held before it is fetched again (default 60 s). */
  retryMs?: number;
  limits: FetchLimits;
  nowMs?: () => number;
}

const DEFAULT_RETRY_MS = 60_000;

export class RdapBootstrap {
  readonly #options: RdapBootstrapOptions;
  #tables: Tables = SHIPPED_BOOTSTRAP;
  #fetchedAtMs = -Infinity;
  #failedAtMs = -Infinity;
  #loading: Promise<void> | undefined;

  constructor(options: RdapBootstrapOptions) {
    this.#options = options;
  }

  /** RDAP base URLs for a domain: the longest matching label suffix (entries may have several labels). */
  async domainBaseUrls(domain: string): Promise<string[]> {
    await this.#refresh();
    const labels = domain.toLowerCase().split('.');
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.');
      const hit = this.#tables.dns.find(([entries]) => entries.some((e) => e.toLowerCase() === suffix));
      if (hit) return preferHttps(hit[1]);
    }
    return [];
  }

  /** RDAP base URLs for an address: the longest matching prefix. */
  async ipBaseUrls(ip: string): Promise<string[]> {
    await this.#refresh();
    const family = isIP(ip);
    if (family === 0) return [];
    const table = family === 4 ? this.#tables.ipv4 : this.#tables.ipv6;
    const value = ipToBigInt(ip);
    let best: { prefix: number; urls: string[] } | undefined;
    for (const [entries, urls] of table) {
      for (const entry of entries) {
        const cidr = parseCidr(entry);
        if (cidr && cidr.family === family && contains(cidr, value) && (!best || cidr.prefix > best.prefix)) best = { prefix: cidr.prefix, urls };
      }
    }
    return best ? preferHttps(best.urls) : [];
  }

  /** `host[:port]` of every base URL and of the bootstrap URL itself: the RDAP request allowlist. */
  allowedHosts(): Set<string> {
    const hosts = new Set<string>();
    const add = (u: string) => {
      try {
        hosts.add(new URL(u).host);
      } catch {
        // a malformed URL in a fetched file is simply never used
      }
    };
    for (const t of [this.#tables.dns, this.#tables.ipv4, this.#tables.ipv6]) for (const [, urls] of t) urls.forEach(add);
    if (this.#options.url) add(this.#options.url);
    return hosts;
  }

  async #refresh(): Promise<void> {
    const url = this.#options.url;
    if (!url) return;
    const now = (this.#options.nowMs ?? Date.now)();
    if (now - this.#fetchedAtMs < this.#options.refreshMs) return;
    if (now - this.#failedAtMs < (this.#options.retryMs ?? DEFAULT_RETRY_MS)) return;
    this.#loading ??= this.#load(url, now).finally(() => {
      this.#loading = undefined;
    });
    await this.#loading;
  }

  async #load(url: string, now: number): Promise<void> {
    const allowed = new Set([new URL(url).host]);
    const get = async (u: string): Promise<Services | undefined> => {
      const res = await fetchJson(u, { ...this.#options.limits, allowedHosts: allowed, maxRedirects: 0 });
      return res.ok && isBootstrapFile(res.body) ? res.body.services : undefined;
    };
    const [dns, ipv4, ipv6] = await Promise.all([get(url), get(new URL('ipv4.json', url).href), get(new URL('ipv6.json', url).href)]);
    this.#tables = { dns: dns ?? this.#tables.dns, ipv4: ipv4 ?? this.#tables.ipv4, ipv6: ipv6 ?? this.#tables.ipv6 };
    // A failed domain file is retried after retryMs rather than after a whole refresh period.
    if (dns) this.#fetchedAtMs = now;
    else this.#failedAtMs = now;
  }
}

function isBootstrapFile(body: unknown): body is BootstrapFile {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as BootstrapFile).services)) return false;
  return (body as BootstrapFile).services.every(
    (s) => Array.isArray(s) && Array.isArray(s[0]) && Array.isArray(s[1]) && s[0].every((e) => typeof e === 'string') && s[1].every((u) => typeof u === 'string'),
  );
}

/** RFC 9224 5: prefer https when a service lists both. */
function preferHttps(urls: string[]): string[] {
  return [...urls].filter((u) => /^https?:\/\//i.test(u)).sort((a, b) => Number(b.startsWith('https:')) - Number(a.startsWith('https:')));
}

interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

export function ipToBigInt(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  let text = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = ipToBigInt(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function parseCidr(text: string): Cidr | undefined {
  const [addr = '', len] = text.split('/');
  const family = isIP(addr);
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  const prefix = len === undefined ? bits : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  return { family: family === 4 ? 4 : 6, network: ipToBigInt(addr) >> BigInt(bits - prefix), prefix };
}

function contains(cidr: Cidr, value: bigint): boolean {
  const bits = cidr.family === 4 ? 32 : 128;
  return value >> BigInt(bits - cidr.prefix) === cidr.network;
}
