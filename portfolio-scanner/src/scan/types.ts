// What one scan needs (dependencies) and how it may be shaped (options).
import type { Resolver } from '@dv/mailsec';
import type { GeoLookup } from '../geo/types.ts';
import type { SharedDnsCache } from './shared-cache.ts';

export interface ScanDeps {
  /** The DNS resolver (a DnsResolver over DNS_SERVERS, or any Resolver in tests). */
  resolver: Resolver;
  /** Geolocation and ASN of the MX and A server addresses. */
  geo: GeoLookup;
  /** Answers many domains share (vendor SPF trees, vendor MX hosts); one per process. */
  shared?: SharedDnsCache;
  /** Clock for `scanned_at`. */
  now?: () => Date;
}

export interface ScanOptions {
  /**
   * Sweep the whole DKIM selector list (mailsec's DKIM_SELECTORS, about 300 names) instead of the
   * vendor selectors. The scheduler asks for it on a domain's first scan and weekly (a sweep is ~220 queries).
   */
  fullDkimSweep?: boolean;
  /** Selectors found before (the previous scan's dkim_selectors): tried on every scan. */
  knownSelectors?: readonly string[];
}
