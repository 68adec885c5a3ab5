import { checkDomain, organizationalDomain } from '@dv/mailsec';

// Domain names as the portfolio stores them: lower case, A-label (IDNA) form, no trailing dot,
// a registrable public name (mailsec's checkDomain, shared with the lookup tools), and an RFC 1035
// hostname (the spec's rule for POST /domains/), so no "_" labels, which DNS lookups allow.

export type NameCheck = { ok: true; domain: string } | { ok: false; reason: string };

export function normalizeDomainName(input: string): NameCheck {
  let domain: string;
  try {
    domain = checkDomain(input);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (domain.includes('_')) return { ok: false, reason: `"${domain}" is not a hostname ("_" is not allowed)` };
  return { ok: true, domain };
}

/** The public suffix (may be multi-label: `co.uk`) of a name normalizeDomainName accepted. */
export function tldOf(domain: string): string {
  const registrable = organizationalDomain(domain);
  return registrable.slice(registrable.indexOf('.') + 1);
}
