// Disposable and free-mail domain lists. The data comes from maintained npm packages (see
// docs/verdict.md): disposable-email-domains-js mirrors the community-curated
// disposable-email-domains/disposable-email-domains blocklist; email-providers (derived from
// goware/emailproviders) lists free and consumer mailbox providers.
import disposableList from 'disposable-email-domains-js/dist/dict/disposable_email_blocklist.json' with { type: 'json' };
import providerList from 'email-providers/all.json' with { type: 'json' };
import { EXTRA_FREE_DOMAINS, NOT_FREE_DOMAINS } from './data/free-domain-overrides.ts';

const DISPOSABLE = new Set<string>(disposableList);
// A domain on the disposable list is reported as disposable, never also as free.
const FREE = new Set<string>(
  [...providerList, ...EXTRA_FREE_DOMAINS].filter((d) => !DISPOSABLE.has(d) && !NOT_FREE_DOMAINS.includes(d)),
);

/** The domain itself and each parent with at least two labels: a.b.mailinator.com -> ..., mailinator.com. */
function selfAndParents(domain: string): string[] {
  const labels = domain.toLowerCase().split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/** Disposable when the domain or any parent domain is listed (x.mailinator.com is disposable). */
export function isDisposableDomain(domain: string): boolean {
  return selfAndParents(domain).some((d) => DISPOSABLE.has(d));
}

/** Free-mail (consumer) domain; exact match, since subdomains of free providers are not mailboxes. */
export function isFreeDomain(domain: string): boolean {
  return FREE.has(domain.toLowerCase());
}
