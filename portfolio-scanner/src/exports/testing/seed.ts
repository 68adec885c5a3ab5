import type { Db } from 'mongodb';
import {
  accountDomainId,
  accountDomainSummary,
  changeId,
  CHANGE_RETENTION_DAYS,
  COLLECTIONS,
  PORTFOLIO_COUNTERS,
  scanResult,
  type AccountDomainDoc,
  type ChangeDoc,
  type CorpusDomainDoc,
  type CounterDoc,
  type ScanResult,
  type WhoisDoc,
} from '@dv/contracts';

// An account of `n` monitored domains written straight into the store (scan results in the
// corpus, the account documents with their copied summary fields, registration data, and a change
// record for every `changeEvery`-th domain), in batches: for the 100,000-row export test and the
// portfolio-api benchmark, where adding and scanning that many domains would take an hour.

const HOUR_MS = 3_600_000;
const GATEWAYS = ['Google', 'Microsoft 365', 'Mimecast', 'Proofpoint', null] as const;
const DMARC = ['reject', 'quarantine', 'none', null] as const;

export interface SeedOptions {
  now?: Date;
  /** Name of domain i (default `d<i>.seed.test`). */
  name?: (i: number) => string;
  changeEvery?: number;
  batch?: number;
}

function result(i: number, at: Date): ScanResult {
  const blank = Object.fromEntries(Object.keys(scanResult.shape).map((k) => [k, null])) as unknown as ScanResult;
  const gw = GATEWAYS[i % GATEWAYS.length]!;
  const p = DMARC[(i >> 1) % DMARC.length]!;
  const lookups = i % 17 === 0 ? 12 : 3 + (i % 5);
  return {
    ...blank,
    scanned_at: at,
    mx: gw === 'Google' ? '1 aspmx.l.google.com' : gw === 'Microsoft 365' ? `0 d${i}-seed-test.mail.protection.outlook.com` : `10 mx${i % 3}.seed.test`,
    email_gateway: gw,
    spf: i % 23 === 0 ? null : `v=spf1 include:_spf.google.com include:spf${i % 7}.seed.test ~all`,
    spf_total_lookups: i % 23 === 0 ? null : lookups,
    spf_limit: i % 23 === 0 ? null : lookups > 10 ? 'over' : 'ok',
    dmarc: p ? `v=DMARC1; p=${p}; rua=mailto:dmarc@d${i}.seed.test` : null,
    dmarc_policy_p: p,
    ns: `ns1.host${i % 300}.test,ns2.host${i % 300}.test`,
    a_records: `192.0.2.${i % 250}`,
    txt: 'google-site-verification=abc',
    mx_server_ipv4: `198.51.100.${i % 250}`,
    mx_server_country: 'US',
  };
}

export async function seedPortfolio(db: Db, accountId: string, n: number, opts: SeedOptions = {}): Promise<void> {
  const now = opts.now ?? new Date();
  const name = opts.name ?? ((i: number) => `d${i}.seed.test`);
  const batch = opts.batch ?? 5_000;
  const changeEvery = opts.changeEvery ?? 10;
  for (let start = 0; start < n; start += batch) {
    const corpus: CorpusDomainDoc[] = [];
    const accounts: AccountDomainDoc[] = [];
    const changes: ChangeDoc[] = [];
    const whois: WhoisDoc[] = [];
    for (let i = start; i < Math.min(n, start + batch); i++) {
      const domain = name(i);
      // Scanned within the last 48 h, spread; a change on every changeEvery-th domain within the last 10 days.
      const at = new Date(now.getTime() - ((i * 7919) % 48) * HOUR_MS);
      const r = result(i, at);
      const changedAt = i % changeEvery === 0 ? new Date(now.getTime() - ((i * 31) % 240) * HOUR_MS) : null;
      corpus.push({ _id: domain, tld: 'test', result: r, scan_count: 3, first_seen: new Date(now.getTime() - 30 * 24 * HOUR_MS), last_scanned: at, last_slot: null, unknown_fields: [], last_change_at: changedAt, next_scan_at: new Date(now.getTime() + 12 * HOUR_MS + (i % 1000) * 40_000), watchers: 1 });
      accounts.push({ _id: accountDomainId(accountId, domain), id: i + 1, account_id: accountId, domain, tld: 'test', added_at: new Date(now.getTime() - 30 * 24 * HOUR_MS), status: 'active', removed_at: null, folder_id: i % 50 === 0 ? 1 : null, is_favorite: i % 97 === 0, tags: i % 11 === 0 ? ['seed'] : [], notes: null, custom_label: null, ...accountDomainSummary(r, changedAt) });
      if (changedAt) {
        changes.push({ _id: changeId(domain, i, 'mx'), id: i + 1, domain_name: domain, field_name: 'mx', old_value: '10 old-mx.seed.test', new_value: r.mx, detected_at: changedAt, slot: i, expires_at: new Date(changedAt.getTime() + CHANGE_RETENTION_DAYS * 24 * HOUR_MS) });
      }
      whois.push({ _id: domain, domain_name: domain, registrar: 'Seed Registrar', name_servers: r.ns, registrant_name: null, registrant_org: null, registrant_country: 'US', registrant_state: null, contact_email: null, registrar_abuse_email: null, registrar_abuse_phone: null, dnssec_status: 'unsigned', whois_status: 'active', whois_server: null, registration_date: null, expiry_date: null, updated_date: null, privacy_enabled: true, domain_statuses: [], ip_geolocation: {}, fetched_at: now, next_fetch_at: new Date(now.getTime() + 7 * 24 * HOUR_MS) });
    }
    await Promise.all([
      db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).insertMany(corpus, { ordered: false }),
      db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).insertMany(accounts, { ordered: false }),
      changes.length > 0 ? db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name).insertMany(changes, { ordered: false }) : null,
      db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name).insertMany(whois, { ordered: false }),
    ]);
  }
  // Later adds take ids after the seeded ones; change ids likewise.
  const counters = db.collection<CounterDoc>(COLLECTIONS.counters.name);
  await counters.updateOne({ _id: PORTFOLIO_COUNTERS.accountDomains(accountId) }, { $max: { seq: n } }, { upsert: true });
  await counters.updateOne({ _id: PORTFOLIO_COUNTERS.changes }, { $max: { seq: n } }, { upsert: true });
}
