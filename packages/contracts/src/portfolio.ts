import { z } from 'zod';

// The portfolio scanner's scan result (docs/portfolio-scanner.md "Scan"): one
// document per scan, the same shape the API returns. The spec types most fields as strings; how a
// field holding several values is written (the join, the order) is fixed here and in
// docs/portfolio-scanner.md, and never changes, since change history compares these strings.

const str = z.string().nullable();
const num = z.number().nullable();
const int = z.number().int().nullable();
const date = z.date().nullable();

/** Core DNS records, as the scan writes them (formats: docs/portfolio-scanner.md "Field formats"). */
export const scanDnsFields = {
  mx: str,
  spf: str,
  dmarc: str,
  dmarc_policy_p: z.enum(['reject', 'quarantine', 'none']).nullable(),
  dmarc_rua: str,
  dmarc_ruf: str,
  txt: str,
  a_records: str,
  aaaa_records: str,
  ns: str,
  soa: str,
  bimi: str,
  srv: str,
  ptr: str,
};

export const scanDetectionFields = { email_gateway: str, tech_in_dns: str };

export const scanGeoFields = {
  mx_server_ipv4: str,
  mx_server_ipv6: str,
  mx_server_country: str,
  mx_server_region: str,
  mx_server_city: str,
  mx_server_asn: str,
  mx_server_asn_name: str,
  mx_server_lat: num,
  mx_server_lon: num,
  a_server_country: str,
  a_server_region: str,
  a_server_city: str,
  a_server_asn: str,
  a_server_asn_name: str,
  a_server_lat: num,
  a_server_lon: num,
};

export const scanDkimFields = { dkim_hosts: str, dkim_selectors: str, dkim_vendors: str, dkim: str };

export const scanSpfFields = {
  spf_main_lookups: int,
  spf_nested_lookups: int,
  spf_total_lookups: int,
  spf_email_senders: str,
  spf_limit: str,
};

export const scanChangeFields = {
  previous_mx: str,
  previous_email_gateway: str,
  previous_dmarc_p: str,
  mx_changed_date: date,
  gateway_changed_date: date,
  dmarc_p_changed_date: date,
};

/** What one scan of one domain observes (everything but change tracking). */
export const scanObservation = z.object({
  scanned_at: z.date(),
  ...scanDnsFields,
  ...scanDetectionFields,
  ...scanGeoFields,
  ...scanDkimFields,
  ...scanSpfFields,
});
export type ScanObservation = z.infer<typeof scanObservation>;
export type ScanField = keyof Omit<ScanObservation, 'scanned_at'>;

/** The stored and returned scan result: the observation plus change tracking. */
export const scanResult = scanObservation.extend(scanChangeFields);
export type ScanResult = z.infer<typeof scanResult>;

/**
 * A scan's observation, and which of its fields rest on a confirmed DNS answer (an answer or a
 * confirmed absence: NXDOMAIN, NODATA). A field whose lookups failed (SERVFAIL, timeout, REFUSED)
 * is listed in `unconfirmed`: change history never turns it into a change, and the stored value
 * of the previous scan stands (docs/portfolio-scanner.md "Change history").
 */
export interface ScanOutcome {
  observation: ScanObservation;
  unconfirmed: ScanField[];
  /** DNS queries this scan sent, by outcome (metrics, politeness accounting). */
  queries: number;
}
