import type { Filter } from 'mongodb';
import type { AccountDomainDoc, ChangeDoc, CorpusDomainDoc, ScanResult } from '@dv/contracts';

// What of a shared name's history an account sees (docs/portfolio-scanner.md "Tenant history").
// The corpus keeps one history per name, whoever watches it. An account sees the latest scan at
// once (public DNS: the point of a shared corpus), but first_seen, scan_count, change records and
// the scan result's change-tracking fields only from the start of its own history of the name, so
// that no account learns whether, or since when, another monitors it. A plan with the global
// domain view sees the corpus as such. Pure: the routes, the MCP tools and the exports apply it.

type Own = Pick<AccountDomainDoc, 'first_seen' | 'added_at' | 'scan_count_base'>;

/** Where the account's history of the name starts; null: all of it (the global domain view). */
export function historySince(d: Own, globalView: boolean): Date | null {
  if (globalView) return null;
  // Documents stored before first_seen existed (until the migration reaches them): when it was added.
  return d.first_seen ?? d.added_at;
}

/** The detail's `first_seen` and `scan_count` for the account. */
export function accountCounts(d: Own, c: Pick<CorpusDomainDoc, 'first_seen' | 'scan_count'> | null, globalView: boolean): { first_seen: Date; scan_count: number } {
  const corpusScans = c?.scan_count ?? 0;
  if (globalView) return { first_seen: c?.first_seen ?? d.added_at, scan_count: corpusScans };
  return { first_seen: d.first_seen ?? d.added_at, scan_count: Math.max(0, corpusScans - (d.scan_count_base ?? 0)) };
}

/** The name's change records the account sees (index domain_changes; detected_at is a residual: a name has few). */
export function changeFilter(domain: string, since: Date | null): Filter<ChangeDoc> {
  return since === null ? { domain_name: domain } : { domain_name: domain, detected_at: { $gte: since } };
}

/** The scan result's change-tracking pairs: each previous value with the date it was replaced. */
const TRACKING = [
  ['previous_mx', 'mx_changed_date'],
  ['previous_email_gateway', 'gateway_changed_date'],
  ['previous_dmarc_p', 'dmarc_p_changed_date'],
] as const satisfies ReadonlyArray<readonly [keyof ScanResult, keyof ScanResult]>;

/**
 * The latest result as the account sees it: a previous value replaced before its history began
 * is the corpus's history, not the account's, so it reads as no change seen (null, null).
 */
export function scanResultSince(r: ScanResult | null, since: Date | null): ScanResult | null {
  if (r === null || since === null) return r;
  let out = r;
  for (const [previous, changedAt] of TRACKING) {
    const at = r[changedAt];
    if (at === null || at >= since) continue;
    if (out === r) out = { ...r };
    out[previous] = null;
    out[changedAt] = null;
  }
  return out;
}
