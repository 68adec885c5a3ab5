// Why a registration lookup gave no data, from what the RDAP servers answered and lookupWhois's
// port-43 error, so a record without data tells the client the reason instead of a bare null. Pure.
import type { WhoisLookup } from '@dv/mailsec';

/** The closed list of `lookup_status` values, each with what it means (docs and OpenAPI). */
export const LOOKUP_STATUSES = {
  fetched: 'the latest lookup answered; the record holds its data',
  pending: 'not looked up yet',
  deferred: 'the RDAP server asked us to back off with a 429, or its request budget is taken; looked up at next_fetch_at',
  no_rdap_service: 'the RDAP bootstrap lists no RDAP service for the TLD and no WHOIS server answered',
  refused: 'the RDAP server answered with an error such as HTTP 403 and no WHOIS server answered',
  unreachable: 'the RDAP server did not answer, by timeout or failed connection, and no WHOIS server answered',
} as const;
export type LookupStatus = keyof typeof LOOKUP_STATUSES;

/** One RDAP request's outcome as the refresher saw it (HTTP status when the server answered). */
export interface RdapAnswer {
  host: string;
  status?: number;
  error?: string;
}

/** The status and words for a lookup no source answered (`w.registered === null`). */
export function failedLookup(domain: string, rdap: readonly RdapAnswer[], w: Pick<WhoisLookup, 'error'>): { status: LookupStatus; detail: string } {
  const port43 = w.error ? `; port 43: ${w.error}` : '';
  if (rdap.length === 0) {
    const tld = domain.slice(domain.lastIndexOf('.') + 1);
    return { status: 'no_rdap_service', detail: `No RDAP service for .${tld} in the RDAP bootstrap${port43}.` };
  }
  const said = rdap.map((a) => `${a.host}: ${a.error ?? `HTTP ${a.status ?? '?'}`}`).join(', ');
  // A server that answered with an error status refused us; one that never answered may be down.
  const status: LookupStatus = rdap.some((a) => a.status !== undefined && a.status >= 400) ? 'refused' : 'unreachable';
  return { status, detail: `RDAP ${said}${port43}.` };
}
