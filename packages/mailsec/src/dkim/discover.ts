// DKIM key discovery: a bounded-concurrency sweep of DKIM_SELECTORS under _domainkey.<domain>.
// RFC 8020: an NXDOMAIN for _domainkey.<domain> means nothing exists below it, so the sweep is
// skipped (one query instead of hundreds). An empty non-terminal answers NOERROR/NODATA.
import { isDnsFailure, txtJoin, type Rcode, type Resolver } from '../resolver/types.ts';
import { dkimProvider, type DkimProviderMatch } from './providers.ts';
import { isDkimRecordText, parseDkimRecord, type DkimKey } from './record.ts';
import { DKIM_SELECTORS } from './selectors.ts';

export interface DkimSelectorFound {
  selector: string;
  /** <selector>._domainkey.<domain> */
  name: string;
  /** CNAME chain followed from the name (hosted keys). */
  cnames: string[];
  record: string;
  key: DkimKey;
  provider: DkimProviderMatch | null;
}

export interface DkimDiscovery {
  domain: string;
  /**
   * found: at least one key; none: swept, nothing; no_domainkey: _domainkey is NXDOMAIN (sweep
   * skipped); unknown: no key found and every selector lookup failed, so nothing was checked.
   */
  status: 'found' | 'none' | 'no_domainkey' | 'unknown';
  /** Rcode of the _domainkey.<domain> probe. */
  domainkeyRcode: Rcode;
  selectorsTried: number;
  found: DkimSelectorFound[];
  /** Selectors whose lookup failed (timeout, SERVFAIL): the sweep is incomplete for them. */
  failed: { selector: string; rcode: Rcode }[];
  elapsedMs: number;
}

export interface DkimDiscoverOptions {
  selectors?: readonly string[];
  extraSelectors?: readonly string[];
  concurrency?: number;
}

const SELECTOR = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

export async function discoverDkim(domain: string, resolver: Resolver, options: DkimDiscoverOptions = {}): Promise<DkimDiscovery> {
  const started = performance.now();
  const selectors = [...new Set([...(options.selectors ?? DKIM_SELECTORS), ...(options.extraSelectors ?? [])].map((s) => s.toLowerCase()))].filter((s) => SELECTOR.test(s));
  const probe = await resolver.resolve(`_domainkey.${domain}`, 'TXT');
  const done = (status: DkimDiscovery['status'], found: DkimSelectorFound[], failed: DkimDiscovery['failed'], tried: number): DkimDiscovery => ({
    domain,
    status,
    domainkeyRcode: probe.rcode,
    selectorsTried: tried,
    found,
    failed,
    elapsedMs: Math.round(performance.now() - started),
  });
  if (probe.rcode === 'NXDOMAIN') return done('no_domainkey', [], [], 0);

  const found: DkimSelectorFound[] = [];
  const failed: DkimDiscovery['failed'] = [];
  await forEachLimited(selectors, Math.max(1, options.concurrency ?? 48), async (selector) => {
    const name = `${selector}._domainkey.${domain}`;
    const txt = await resolver.resolve(name, 'TXT');
    if (isDnsFailure(txt.rcode)) {
      failed.push({ selector, rcode: txt.rcode });
      return;
    }
    // A wildcard TXT (or an unrelated record) must not count as a key.
    const record = txt.answers.map(txtJoin).find(isDkimRecordText);
    if (record === undefined) return;
    found.push({ selector, name, cnames: txt.cnames, record, key: parseDkimRecord(record), provider: dkimProvider(selector, txt.cnames) });
  });
  const order = new Map(selectors.map((s, i) => [s, i]));
  found.sort((a, b) => (order.get(a.selector) ?? 0) - (order.get(b.selector) ?? 0));
  const status = found.length > 0 ? 'found' : selectors.length > 0 && failed.length === selectors.length ? 'unknown' : 'none';
  return done(status, found, failed, selectors.length);
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
