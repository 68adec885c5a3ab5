import type { ScanField, ScanOutcome, ScanResult } from '@dv/contracts';

// Change history, pure (docs/portfolio-scanner.md "Change history"): a new scan against the
// stored one. Only a confirmed answer moves a value; a field whose lookups failed keeps the value
// it had, so a flapping name server can neither flood the history nor blank a stored field.

/**
 * Fields compared scan to scan, one Change record each when they differ. Left out on purpose:
 * a_records/aaaa_records (CDNs and load balancers rotate them: noise, not news), txt (verification
 * tokens come and go), dkim_selectors (what a scan finds depends on which selectors it probes: the
 * full sweep runs weekly), geolocation (database updates move it), the SPF counts (follow spf).
 */
export const TRACKED_FIELDS = ['mx', 'email_gateway', 'spf', 'dmarc', 'dmarc_policy_p', 'ns'] as const satisfies readonly ScanField[];
export type TrackedField = (typeof TRACKED_FIELDS)[number];

/**
 * Fields computed from another field's answer: when the parent is unconfirmed, so are they, even
 * if the scan engine did not say so (a gateway read from a failed MX lookup is no observation).
 */
const DERIVED_FROM: Partial<Record<ScanField, readonly ScanField[]>> = {
  mx: ['email_gateway', 'mx_server_ipv4', 'mx_server_ipv6', 'mx_server_country', 'mx_server_region', 'mx_server_city', 'mx_server_asn', 'mx_server_asn_name', 'mx_server_lat', 'mx_server_lon'],
  dmarc: ['dmarc_policy_p', 'dmarc_rua', 'dmarc_ruf'],
  spf: ['spf_main_lookups', 'spf_nested_lookups', 'spf_total_lookups', 'spf_email_senders', 'spf_limit'],
  a_records: ['a_server_country', 'a_server_region', 'a_server_city', 'a_server_asn', 'a_server_asn_name', 'a_server_lat', 'a_server_lon'],
};

/** The spec's change-tracking fields: which field each follows. */
const FOLLOWED = [
  { field: 'mx', previous: 'previous_mx', changedAt: 'mx_changed_date' },
  { field: 'email_gateway', previous: 'previous_email_gateway', changedAt: 'gateway_changed_date' },
  { field: 'dmarc_policy_p', previous: 'previous_dmarc_p', changedAt: 'dmarc_p_changed_date' },
] as const satisfies ReadonlyArray<{ field: TrackedField; previous: keyof ScanResult; changedAt: keyof ScanResult }>;

export interface FieldChange {
  field_name: TrackedField;
  old_value: string | null;
  new_value: string | null;
}

export interface ScanDiff {
  /** The result to store: the observation, with unconfirmed fields keeping their previous value. */
  result: ScanResult;
  changes: FieldChange[];
  /**
   * Fields no scan has confirmed yet (their stored null is not an observation). Stored beside the
   * result and passed back in: the first confirmed answer for such a field is a first observation,
   * not a change from null.
   */
  unknown: ScanField[];
}

/** Every unconfirmed field, with the fields derived from them. */
export function unconfirmedClosure(unconfirmed: readonly ScanField[]): Set<ScanField> {
  const out = new Set<ScanField>(unconfirmed);
  for (const field of unconfirmed) for (const child of DERIVED_FROM[field] ?? []) out.add(child);
  return out;
}

export function diffScan(previous: ScanResult | null, outcome: ScanOutcome, at: Date, previousUnknown: readonly ScanField[] = []): ScanDiff {
  const unconfirmed = unconfirmedClosure(outcome.unconfirmed);
  const result: ScanResult = {
    ...outcome.observation,
    previous_mx: previous?.previous_mx ?? null,
    previous_email_gateway: previous?.previous_email_gateway ?? null,
    previous_dmarc_p: previous?.previous_dmarc_p ?? null,
    mx_changed_date: previous?.mx_changed_date ?? null,
    gateway_changed_date: previous?.gateway_changed_date ?? null,
    dmarc_p_changed_date: previous?.dmarc_p_changed_date ?? null,
  };
  const keep = result as Record<ScanField, unknown>;
  for (const field of unconfirmed) keep[field] = previous === null ? null : (previous[field] ?? null);

  const wasUnknown = new Set(previous === null ? [] : previousUnknown);
  const unknown = [...unconfirmed].filter((f) => previous === null || wasUnknown.has(f));
  const changes: FieldChange[] = [];
  if (previous === null) return { result, changes, unknown };

  for (const field of TRACKED_FIELDS) {
    if (unconfirmed.has(field) || wasUnknown.has(field)) continue;
    const oldValue = previous[field] ?? null;
    const newValue = result[field];
    if (oldValue === newValue) continue;
    changes.push({ field_name: field, old_value: oldValue, new_value: newValue });
  }
  for (const f of FOLLOWED) {
    const change = changes.find((c) => c.field_name === f.field);
    if (change === undefined) continue;
    result[f.previous] = change.old_value;
    result[f.changedAt] = at;
  }
  return { result, changes, unknown };
}
