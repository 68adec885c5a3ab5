// Runs the suite against the shared simulated internet's DNS server (@dv/world) instead of
// this driver's own zone server. Opt-in (SPF_CONFORMANCE_DNS=world): the world's schema is
// stricter than the pyspf zone data, so a few scenarios cannot be expressed there (see below).
import { parseRecords, startDnsServer, type DnsRecordInput, type NameBehaviourInput } from '@dv/world';
import type { DnsWorld } from './zone-server.ts';
import { isTimeoutMarker, type ZoneEntry } from './zonedata.ts';

export interface WorldData {
  records: DnsRecordInput[];
  behaviours: Record<string, NameBehaviourInput>;
  /** Entries the world cannot hold, with the reason, for the report. */
  skipped: string[];
}

/**
 * The world only knows name-wide timeouts and LDH(+underscore) names, and wants at least one
 * string per TXT record. A timeout marker becomes a name-wide timeout unless TXT records were
 * listed before it (the SPF engine asks only for TXT at a policy name, so that is what matters);
 * records the world's schema rejects are left out.
 */
export function toWorldData(entries: readonly ZoneEntry[]): WorldData {
  const data: WorldData = { records: [], behaviours: {}, skipped: [] };
  for (const entry of entries) {
    if (isTimeoutMarker(entry)) {
      if (!(entry.exceptTypes ?? []).includes('TXT')) data.behaviours[entry.name.toLowerCase()] = { timeout: true };
      continue;
    }
    const record = entry as DnsRecordInput;
    try {
      parseRecords([record]);
      data.records.push(record);
    } catch (error) {
      data.skipped.push(`${entry.name} ${entry.type}: ${(error as Error).message.split('\n').slice(1).join(' ').trim()}`);
    }
  }
  return data;
}

export async function startWorldDns(): Promise<DnsWorld & { skipped: string[] }> {
  const handle = await startDnsServer({ records: [] });
  const skipped: string[] = [];
  return {
    address: handle.server,
    skipped,
    setRecords(entries) {
      const data = toWorldData(entries);
      skipped.push(...data.skipped);
      handle.setRecords(data.records, data.behaviours);
    },
    close: () => handle.stop(),
  };
}
