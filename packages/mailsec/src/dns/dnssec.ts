// The DNSSEC rule every tool reports in meta.dnssec (docs/mailsec.md "DNSSEC"):
//   signed          the upstream resolver set the AD bit on an answer for the name: it validated
//                   the chain of trust (only a validating resolver can say this);
//   dnskey_present  DNSKEY records are published but no answer came back authenticated: the zone
//                   may be signed, but the chain was not confirmed (no DS at the parent, a broken
//                   chain the resolver tolerated, or a resolver that does not validate);
//   unsigned        no AD bit and no DNSKEY;
//   unknown         the DNSKEY lookup failed (timeout, SERVFAIL), so nothing can be said.
import { isDnsFailure, type Rcode, type ResolveResult } from '../resolver/types.ts';

export type DnssecStatus = 'signed' | 'dnskey_present' | 'unsigned' | 'unknown';

export interface DnssecFacts {
  status: DnssecStatus;
  /** AD bit seen on any answer for the name. */
  authenticated: boolean;
  dnskeyCount: number;
  dsCount: number;
}

export function dnssecStatus(dnskey: ResolveResult<'DNSKEY'>, others: readonly { rcode: Rcode; authenticated: boolean }[], ds?: ResolveResult<'DS'>): DnssecFacts {
  const authenticated = [dnskey, ...others].some((r) => r.authenticated && !isDnsFailure(r.rcode));
  const dnskeyCount = dnskey.answers.length;
  const dsCount = ds?.answers.length ?? 0;
  let status: DnssecStatus;
  if (authenticated) status = 'signed';
  else if (isDnsFailure(dnskey.rcode)) status = 'unknown';
  else if (dnskeyCount > 0) status = 'dnskey_present';
  else status = 'unsigned';
  return { status, authenticated, dnskeyCount, dsCount };
}
