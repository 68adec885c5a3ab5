// Starts a whole world (DNS, MX hosts, RDAP) on loopback and hands back what a service needs to use it.
import { startDnsServer } from './dns/server.ts';
import type { DnsQuery } from './dns/server.ts';
import { parseWorld } from './load.ts';
import { tldOf } from './names.ts';
import { startRdapServer } from './rdap/server.ts';
import type { DnsRecordInput, NameBehaviourInput, WorldInput } from './schema.ts';
import { startSmtpHosts } from './smtp/host.ts';
import type { SmtpHostHandle } from './smtp/host.ts';
import type { SmtpHostStats } from './smtp/stats.ts';

export interface StartWorldOptions {
  /** Address of the DNS and RDAP servers (default 127.0.0.1; the cluster's internet host gives its own). */
  host?: string;
  dnsPort?: number;
  smtpPort?: number;
  rdapPort?: number;
}

export interface WorldHandle {
  dns: { host: string; port: number; server: string; queries: DnsQuery[] };
  // Every scripted MX host listens on its own loopback IP at this same port.
  smtpPort: number;
  rdapBaseUrl: string;
  rdapBootstrapUrl: string;
  // DNS_SERVERS, DNS_CANARIES, SMTP_PORT and RDAP_BOOTSTRAP_URL, ready to hand to a service.
  env: Record<string, string>;
  // By host name; live objects updated while the world runs.
  hosts: Map<string, SmtpHostStats>;
  // Replace the whole DNS record set; per-name behaviours too when given (signed zones stay).
  setRecords(records: DnsRecordInput[], behaviours?: Record<string, NameBehaviourInput>): void;
  // Forget SMTP stats, greylist triplets and rate-limit history; clear the DNS query log.
  reset(): void;
  stop(): Promise<void>;
}

export async function startWorld(input: WorldInput, options: StartWorldOptions = {}): Promise<WorldHandle> {
  const world = parseWorld(input);
  const latencyMs = world.latencyMs;
  const dnsTlds = world.dns.records.map((r) => tldOf(r.name)).filter((tld) => tld !== 'arpa');
  const started: { stop(): Promise<void> }[] = [];
  try {
    const dns = await startDnsServer(world.dns, { host: options.host, port: options.dnsPort, latencyMs });
    started.push(dns);
    const rdap = await startRdapServer(world.rdap, { host: options.host, port: options.rdapPort, latencyMs, tlds: dnsTlds });
    started.push(rdap);
    const smtp = await startSmtpHosts(world.smtp.hosts, { port: options.smtpPort, latencyMs, clientLatencyMs: world.clientLatencyMs });
    started.push(...smtp.hosts);
    return handle(dns, rdap, smtp, worldCanaries(world.dns.records, Object.keys(world.dns.behaviours)));
  } catch (error) {
    await Promise.all(started.map((part) => part.stop()));
    throw error;
  }
}

function handle(
  dns: Awaited<ReturnType<typeof startDnsServer>>,
  rdap: Awaited<ReturnType<typeof startRdapServer>>,
  smtp: { port: number; hosts: SmtpHostHandle[] },
  canaries: readonly string[],
): WorldHandle {
  let stopping: Promise<void> | undefined;
  return {
    dns: { host: dns.host, port: dns.port, server: dns.server, queries: dns.queries },
    smtpPort: smtp.port,
    rdapBaseUrl: rdap.baseUrl,
    rdapBootstrapUrl: rdap.bootstrapUrl,
    env: { DNS_SERVERS: dns.server, DNS_CANARIES: canaries.join(','), SMTP_PORT: String(smtp.port), RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl },
    hosts: new Map(smtp.hosts.map((host) => [host.name, host.stats])),
    setRecords: (records, behaviours) => dns.setRecords(records, behaviours),
    reset() {
      for (const host of smtp.hosts) host.reset();
      dns.queries.length = 0;
    },
    stop() {
      stopping ??= Promise.all([dns.stop(), rdap.stop(), ...smtp.hosts.map((host) => host.stop())]).then(() => undefined);
      return stopping;
    },
  };
}

/**
 * The world's own canaries for the services' resolver sanity check (DNS_CANARIES): the real
 * internet's (gmail.com, ...) do not exist here. Up to three names with an A record of an address
 * no other canary has, and no scripted behaviour (a SERVFAIL or slow name would blur the check).
 */
export function worldCanaries(records: readonly DnsRecordInput[], scripted: readonly string[]): string[] {
  const skip = new Set(scripted.map((n) => n.toLowerCase()));
  const canaries: string[] = [];
  const addresses = new Set<string>();
  for (const r of records) {
    if (r.type !== 'A' || !('address' in r) || skip.has(r.name.toLowerCase()) || r.name.endsWith('.arpa')) continue;
    if (addresses.has(r.address) || canaries.includes(r.name)) continue;
    addresses.add(r.address);
    canaries.push(r.name);
    if (canaries.length === 3) break;
  }
  return canaries;
}
