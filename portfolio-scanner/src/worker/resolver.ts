// The resolver scans use. One place to change: the politeness layer (src/politeness, per-operator
// and per-resolver budgets) wraps this resolver once it offers a constructor for the service.
import { DnsResolver, serversFromEnv, type Resolver } from '@dv/mailsec';

export interface ScanResolverConfig {
  DNS_SERVERS: string[];
  DNS_TIMEOUT_MS: number;
  DNS_RETRIES: number;
}

export function createScanResolver(config: ScanResolverConfig): Resolver & { close(): void } {
  // Empty DNS_SERVERS: the system's resolvers (what node:dns would ask).
  const servers = config.DNS_SERVERS.length > 0 ? config.DNS_SERVERS : serversFromEnv({});
  return new DnsResolver({ servers, timeoutMs: config.DNS_TIMEOUT_MS, retries: config.DNS_RETRIES });
}
