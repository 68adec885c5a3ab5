// MX host name -> addresses. The scheduler sends host names (it did the MX lookup); the probe
// resolves them on the configured DNS servers (the simulated world's in tests) with a small
// bounded cache, so a batch of sessions to one MX does not repeat the same query.
import { Resolver } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { PROBE_DEFAULTS } from './defaults.ts';
import { parseMxHost } from './plan.ts';

export interface HostResolver {
  /** Addresses of the host in the family matching `sourceIp` (IPv4 unless it is IPv6); [] when none. */
  resolve(host: string, sourceIp: string | undefined): Promise<string[]>;
}

export interface ResolverOptions {
  /** `host` or `host:port` entries; empty = the system's resolvers. */
  servers: readonly string[];
  timeoutMs: number;
  now?: () => number;
}

export class ResolveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResolveError';
  }
}

export function createResolver(opts: ResolverOptions): HostResolver {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: 2 });
  if (opts.servers.length > 0) resolver.setServers([...opts.servers]);
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { ips: string[]; expiresAt: number }>();

  // Sessions starting together for one MX share one query instead of sending one each.
  const inFlight = new Map<string, Promise<string[]>>();

  const lookup = (name: string, v6: boolean): Promise<string[]> => {
    const key = `${v6 ? '6' : '4'}:${name}`;
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now()) return Promise.resolve(hit.ips);
    cache.delete(key);
    let pending = inFlight.get(key);
    if (!pending) {
      pending = query(key, name, v6).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  const query = async (key: string, name: string, v6: boolean): Promise<string[]> => {
    let records: { address: string; ttl: number }[];
    try {
      records = v6 ? await resolver.resolve6(name, { ttl: true }) : await resolver.resolve4(name, { ttl: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // "No such name" and "no records of that type" are answers (cached briefly); the rest are failures.
      if (code === 'ENOTFOUND' || code === 'ENODATA') records = [];
      else throw new ResolveError(`cannot resolve ${name}: ${code ?? (err as Error).message}`);
    }
    const ttlMs = records.length > 0 ? Math.min(...records.map((r) => r.ttl * 1000)) : 30_000;
    const ips = records.map((r) => r.address);
    if (cache.size >= PROBE_DEFAULTS.dnsCacheMaxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { ips, expiresAt: now() + Math.min(ttlMs, PROBE_DEFAULTS.dnsCacheMaxTtlMs) });
    return ips;
  };

  return {
    async resolve(host, sourceIp) {
      const parsed = parseMxHost(host);
      if (!parsed) throw new ResolveError(`not a host name: ${JSON.stringify(host.slice(0, 80))}`);
      if (parsed.kind === 'ip') return [parsed.ip];
      if (sourceIp !== undefined) return lookup(parsed.name, isIPv6(sourceIp));
      const v4 = await lookup(parsed.name, false);
      return v4.length > 0 ? v4 : lookup(parsed.name, true);
    },
  };
}
