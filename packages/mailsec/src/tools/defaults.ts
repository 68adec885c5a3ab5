// Every tunable of the engine's tools with its default; durations and sizes carry their unit.
export const TOOL_DEFAULTS = {
  /** dns_lookup / email_security_check without detail=full: records shown per type. */
  listLimit: 10,
  /** Parallel selector queries in a DKIM sweep (the resolver adds its own cap on top). */
  dkimConcurrency: 48,
  /** MX hosts whose A/AAAA dns_lookup and email_security_check look up (in preference order). */
  mxHostsChecked: 10,
  /** Addresses of MX and A hosts checked by blacklist_check for a domain target. */
  blacklistMaxIps: 8,
  /** One RDAP or bootstrap HTTP request, connect to last byte. */
  rdapTimeoutMs: 8000,
  /** One port-43 WHOIS exchange, connect to close. */
  whoisTimeoutMs: 8000,
  /** Largest RDAP answer read; anything bigger is cut off and treated as an error. */
  rdapMaxResponseBytes: 1_048_576,
  /** Largest bootstrap file read (the real IANA dns.json is about 100 KB). */
  bootstrapMaxResponseBytes: 4_194_304,
  /** Largest WHOIS answer read. */
  whoisMaxResponseBytes: 262_144,
  /** RDAP redirects followed (registries redirect IP queries to the right RIR). */
  rdapMaxRedirects: 3,
  /** How long a fetched bootstrap file is trusted before it is fetched again. */
  bootstrapRefreshMs: 86_400_000,
  /** Default WHOIS port (RFC 3912). */
  whoisPort: 43,
} as const;
