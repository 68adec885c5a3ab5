import { createEngine, DNSBL_ZONES, type DnsblZone, type Engine } from '@dv/mailsec';
import type { Logger } from '@dv/runtime';
import type { LookupConfig } from './config.ts';

// The one place lookup takes the mailsec engine from: the contract types, and the engine built
// from this service's configuration.
export { TOOL_NAMES, TargetError } from '@dv/mailsec';
export type { Engine, EngineOptions, ToolInput, ToolName, ToolOutput } from '@dv/mailsec';

/**
 * DNSBL_ZONES entries are `zone=model`: ask `zone` and read its answers with the code table of the
 * built-in list `model` (e.g. `zen.dnsbl.test=zen.spamhaus.org` for the simulated world, or a
 * Spamhaus DQS zone in production). Unset = the engine's built-in lists.
 */
export function dnsblZonesFrom(entries: readonly string[]): DnsblZone[] | undefined {
  if (entries.length === 0) return undefined;
  return entries.map((entry) => {
    const [zone = '', model = ''] = entry.split('=').map((s) => s.trim().toLowerCase());
    const row = DNSBL_ZONES.find((z) => z.zone === model);
    if (!row) throw new Error(`DNSBL_ZONES: "${model}" is not a built-in list (${DNSBL_ZONES.map((z) => z.zone).join(', ')})`);
    return { ...row, zone, name: `${row.name} (${zone})` };
  });
}

export function createLookupEngine(config: LookupConfig, log?: Logger): Engine {
  return createEngine({
    dnsServers: config.DNS_SERVERS,
    canaries: config.DNS_CANARIES,
    sanity: {
      intervalMs: config.DNS_CANARY_INTERVAL_MS,
      unreliableIntervalMs: config.DNS_CANARY_UNRELIABLE_INTERVAL_MS,
      onChange: (state, detail) => log?.[state === 'trustworthy' ? 'info' : 'error']({ state, detail }, 'DNS resolver sanity changed'),
    },
    rdapBootstrapUrl: config.RDAP_BOOTSTRAP_URL,
    dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    ...(config.WHOIS_PORT !== undefined ? { whoisPort: config.WHOIS_PORT } : {}),
    ...(config.DNSBL_ZONES.length > 0 ? { dnsblZones: dnsblZonesFrom(config.DNSBL_ZONES) } : {}),
  });
}
