// What every tool function needs: the resolver, the clock, the resolved settings and the RDAP
// bootstrap. createEngine builds one; portfolio-scanner may build its own to call the tool
// functions directly.
import { parseServers, serversFromEnv } from '../resolver/servers.ts';
import { DnsResolver } from '../resolver/resolver.ts';
import { saneDnsResolver, type ResolverSanity } from '../resolver/sanity-check.ts';
import type { Resolver } from '../resolver/types.ts';
import { DNSBL_ZONES, type DnsblZone } from '../dnsbl/zones.ts';
import { RdapBootstrap } from '../whois/bootstrap.ts';
import { WHOIS_SERVERS, type WhoisServer } from '../whois/servers.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import type { EngineOptions } from './types.ts';

export interface ToolSettings {
  allowPrivateTargets: boolean;
  dnsblZones: readonly DnsblZone[];
  whoisServers: Readonly<Record<string, WhoisServer>>;
  whoisPort: number;
  dkimSelectors: readonly string[];
  rdapTimeoutMs: number;
  whoisTimeoutMs: number;
}

export interface ToolContext {
  resolver: Resolver;
  now: () => Date;
  settings: ToolSettings;
  bootstrap: RdapBootstrap;
}

export interface OwnedToolContext extends ToolContext {
  /** The check of the resolver the context built, when canaries were given. */
  sanity?: ResolverSanity;
  /** Releases what the context created (its resolver; an injected one is left alone). */
  close(): void;
}

export function createToolContext(opts: EngineOptions): OwnedToolContext {
  let resolver = opts.resolver;
  let owned: { close(): void } | undefined;
  let sanity: ResolverSanity | undefined;
  if (!resolver) {
    const servers = opts.dnsServers.length > 0 ? parseServers(opts.dnsServers) : serversFromEnv({});
    const settings = opts.dnsTimeoutMs !== undefined ? { timeoutMs: opts.dnsTimeoutMs } : {};
    if (opts.canaries && opts.canaries.length > 0) {
      const sane = saneDnsResolver({ servers, canaries: opts.canaries, resolver: settings, ...(opts.sanity ? { sanity: opts.sanity } : {}) });
      void sane.sanity.start();
      ({ resolver, sanity } = sane);
      owned = sane;
    } else {
      const plain = new DnsResolver({ servers, ...settings });
      resolver = plain;
      owned = plain;
    }
  }
  const now = opts.now ?? (() => new Date());
  const rdapTimeoutMs = opts.rdapTimeoutMs ?? TOOL_DEFAULTS.rdapTimeoutMs;
  const whoisServers: Record<string, WhoisServer> = { ...WHOIS_SERVERS };
  for (const [tld, host] of Object.entries(opts.whoisServers ?? {})) whoisServers[tld.toLowerCase().replace(/^\./, '')] = { host };
  return {
    resolver,
    ...(sanity ? { sanity } : {}),
    now,
    settings: {
      allowPrivateTargets: opts.allowPrivateTargets ?? false,
      dnsblZones: opts.dnsblZones ?? DNSBL_ZONES,
      whoisServers,
      whoisPort: opts.whoisPort ?? TOOL_DEFAULTS.whoisPort,
      dkimSelectors: opts.dkimSelectors ?? [],
      rdapTimeoutMs,
      whoisTimeoutMs: opts.whoisTimeoutMs ?? TOOL_DEFAULTS.whoisTimeoutMs,
    },
    bootstrap: new RdapBootstrap({
      ...(opts.rdapBootstrapUrl ? { url: opts.rdapBootstrapUrl } : {}),
      refreshMs: TOOL_DEFAULTS.bootstrapRefreshMs,
      limits: { timeoutMs: rdapTimeoutMs, maxBytes: TOOL_DEFAULTS.bootstrapMaxResponseBytes },
      nowMs: () => now().getTime(),
    }),
    close() {
      owned?.close();
    },
  };
}
