import { getDomain } from 'tldts';
import { CATCH_ALL_SKIP_DOMAINS, PROVIDERS, SELF_HOSTED_POLITENESS } from './data/providers.ts';
import type { ProviderRow } from './provider-types.ts';

const SKIP_DOMAINS = new Set(CATCH_ALL_SKIP_DOMAINS);

function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

function matches(host: string, pattern: string): boolean {
  return host === pattern || host.endsWith(`.${pattern}`);
}

/**
 * The registrable domain of an MX host by the Public Suffix List (tldts, ICANN section):
 * mx1.mail.example.co.uk -> example.co.uk. An IP address or a bare suffix keys by the host itself.
 */
export function registrableDomain(host: string): string {
  const h = normalizeHost(host);
  return getDomain(h) ?? h;
}

/**
 * The provider row for an MX host, or a self-hosted row keyed by the host's registrable domain
 * (id, name and vendor are that domain), carrying the default politeness and no quirks.
 */
export function providerForMx(mxHost: string): ProviderRow {
  const host = normalizeHost(mxHost);
  const row = PROVIDERS.find((p) => p.patterns.some((pattern) => matches(host, pattern)));
  if (row) return row;
  const key = registrableDomain(host);
  return {
    id: key,
    name: key,
    vendor: key,
    kind: 'self_hosted',
    patterns: [key],
    politeness: SELF_HOSTED_POLITENESS,
    quirks: { skipCatchAllProbe: false, acceptsAllAtRcpt: false },
  };
}

/** Whether the probe should send the random-address catch-all RCPT for this recipient domain. */
export function shouldProbeCatchAll(recipientDomain: string, provider: ProviderRow): boolean {
  return !provider.quirks.skipCatchAllProbe && !SKIP_DOMAINS.has(normalizeHost(recipientDomain));
}
