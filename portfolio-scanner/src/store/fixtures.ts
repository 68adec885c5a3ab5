import { scanObservation, type ScanField, type ScanObservation, type ScanOutcome } from '@dv/contracts';

// Test fixtures: scan outcomes with every field of the contract, so tests name only what matters.

export const BASE_SCAN: Partial<ScanObservation> = {
  mx: '10 mx1.example.test',
  email_gateway: 'Google',
  spf: 'v=spf1 include:_spf.google.com ~all',
  dmarc: 'v=DMARC1; p=reject',
  dmarc_policy_p: 'reject',
  ns: 'ns1.dns.test,ns2.dns.test',
  a_records: '192.0.2.1',
  spf_total_lookups: 4,
};

export function outcome(at: Date, fields: Partial<ScanObservation> = {}, unconfirmed: ScanField[] = []): ScanOutcome {
  const observation = Object.fromEntries(Object.keys(scanObservation.shape).map((k) => [k, null])) as unknown as ScanObservation;
  return { observation: { ...observation, ...BASE_SCAN, ...fields, scanned_at: at }, unconfirmed, queries: 0 };
}
