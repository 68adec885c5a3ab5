import type { Redis } from 'ioredis';
import type { Db, Filter } from 'mongodb';
import { SPF_LOOKUP_LIMIT, type AccountDomainDoc } from '@dv/contracts';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { runOnce } from '../store/index.ts';
import { NO_GATEWAY } from './domain-query.ts';
import { historySince } from './history.ts';
import { changes, changeView, domains } from './views.ts';

// The dashboard summary (spec "Dashboard summary"; docs/portfolio-scanner.md "API"), over the same
// domains the list shows (not removed), so each figure equals the list's total_count for the
// matching filter. Every figure is a count over one index of portfolio_domains (collections.ts),
// answered from the index without reading documents, so it stays fast at 100,000 domains and more:
// the gateway distribution takes the account's distinct gateways from the index, then counts each;
// DMARC counts its four values; SPF counts the stored `spf_status` buckets. At 100,000 domains
// those counts still walk ~350,000 index keys, too slow on a loaded store, so the route serves a
// snapshot (cachedDashboardSummary) that API writes to the account's domains invalidate.

const DAY_MS = 86_400_000;
export const RECENT_CHANGES = 20;
const RECENT_DAYS = 7;

const pct = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 100);

export async function dashboardSummary(db: Db, accountId: string, now = new Date()) {
  const coll = domains(db);
  const since7d = new Date(now.getTime() - RECENT_DAYS * DAY_MS);
  // Each count is over (account_id, field) alone, which an index answers without reading documents;
  // the account's removed domains (few: read once through account_status) are subtracted, rather
  // than put in every filter, which would make every count read every document.
  const gone = await coll
    .find({ account_id: accountId, status: 'removed' }, { projection: { email_gateway: 1, dmarc_policy_p: 1, spf_status: 1, scanned_at: 1, needs_attention: 1 }, hint: 'account_status' })
    .toArray();
  const live = async (f: Partial<Record<'email_gateway' | 'dmarc_policy_p' | 'spf_status' | 'needs_attention', unknown>> & { scanned_at?: { $gte: Date } }) => {
    const all = await coll.countDocuments({ account_id: accountId, ...f } as Filter<AccountDomainDoc>);
    return all - gone.filter((d) => Object.entries(f).every(([k, v]) => (k === 'scanned_at' ? d.scanned_at !== null && d.scanned_at >= (v as { $gte: Date }).$gte : (d[k as keyof AccountDomainDoc] ?? null) === v))).length;
  };
  const byValue = async <K extends 'email_gateway' | 'dmarc_policy_p' | 'spf_status'>(field: K, values: readonly (AccountDomainDoc[K] | null)[]) =>
    (await Promise.all(values.map(async (v) => [v, await live({ [field]: v })] as const))).filter(([, n]) => n > 0);
  const gatewayNames = (await coll.distinct('email_gateway', { account_id: accountId })) as (string | null)[];
  const [total, gateways, dmarc, spf, fresh24, fresh7, attention, changed] = await Promise.all([
    live({}),
    byValue('email_gateway', gatewayNames.includes(null) ? gatewayNames : [...gatewayNames, null]),
    byValue('dmarc_policy_p', ['reject', 'quarantine', 'none', null]),
    byValue('spf_status', ['over_limit', 'missing']),
    live({ scanned_at: { $gte: new Date(now.getTime() - DAY_MS) } }),
    live({ scanned_at: { $gte: since7d } }),
    live({ needs_attention: true }),
    coll.find({ account_id: accountId, last_change_at: { $gte: since7d }, status: { $ne: 'removed' } }, { projection: { domain: 1, first_seen: 1, added_at: 1 } }).sort({ last_change_at: -1 }).limit(RECENT_CHANGES).toArray(),
  ]);
  // Each domain's changes from the start of the account's own history of it (history.ts).
  const since = (d: Pick<AccountDomainDoc, 'first_seen' | 'added_at'>) => {
    const own = historySince(d, false) as Date;
    return own > since7d ? own : since7d;
  };
  const recent = changed.length === 0 ? [] : await changes(db).find({ $or: changed.map((d) => ({ domain_name: d.domain, detected_at: { $gte: since(d) } })) }).sort({ detected_at: -1, id: -1 }).limit(RECENT_CHANGES).toArray();
  const dmarcCount = (k: string | null) => dmarc.find(([v]) => v === k)?.[1] ?? 0;
  const spfCount = (k: string) => spf.find(([v]) => v === k)?.[1] ?? 0;
  const share = (n: number) => ({ count: n, percentage: pct(n, total) });
  return {
    total_domains: total,
    email_gateway_distribution: gateways
      .map(([name, count]) => ({ gateway_name: name ?? NO_GATEWAY, count, percentage: pct(count, total) }))
      .sort((a, b) => b.count - a.count || a.gateway_name.localeCompare(b.gateway_name)),
    dmarc_distribution: { reject: share(dmarcCount('reject')), quarantine: share(dmarcCount('quarantine')), none: share(dmarcCount('none')), missing: share(dmarcCount(null)) },
    spf_status: { valid: total - spfCount('over_limit') - spfCount('missing'), over_limit: spfCount('over_limit'), missing: spfCount('missing') },
    scan_freshness: { scanned_last_24h: fresh24, scanned_last_7d: fresh7, percentage_24h: pct(fresh24, total), percentage_7d: pct(fresh7, total) },
    recent_changes: recent.map(changeView),
    needs_attention_count: attention,
  };
}

const SPF_STATUS_MIGRATION = 'migration:portfolio_domains.spf_status';

/**
 * Account domains stored before `spf_status` existed get it, once per database (a counters
 * document records that it ran); later scans and adds write it with the other summary fields.
 */
export async function backfillSpfStatus(db: Db): Promise<number> {
  return runOnce(db, SPF_STATUS_MIGRATION, 0, async () => {
    const r = await domains(db).updateMany({ spf_status: { $exists: false } }, [
      { $set: { spf_status: { $cond: [{ $eq: ['$spf', null] }, 'missing', { $cond: [{ $gt: ['$spf_total_lookups', SPF_LOOKUP_LIMIT] }, 'over_limit', 'valid'] }] } } },
    ]);
    return r.modifiedCount;
  });
}

// The snapshot in Redis, shared by the replicas: served while younger than
// PORTFOLIO_DEFAULTS.summaryMaxAgeMs; older, it is still served and recomputed in the background
// (one replica at a time); a write to the account's domains through the API bumps the account's
// version, so the next read computes afresh and the summary matches the list at once. Scans
// landing change it within the maximum age.
const SNAPSHOT = (accountId: string) => `dv:portfolio:summary:${accountId}`;
const VERSION = (accountId: string) => `dv:portfolio:summary-version:${accountId}`;
const REFRESHING = (accountId: string) => `dv:portfolio:summary-refresh:${accountId}`;
type Summary = Awaited<ReturnType<typeof dashboardSummary>>;

async function computeSnapshot(db: Db, redis: Redis, accountId: string, version: string | null, maxAgeMs: number): Promise<Summary> {
  const data = await dashboardSummary(db, accountId);
  await redis.set(SNAPSHOT(accountId), JSON.stringify({ at: Date.now(), version: version ?? '0', data }), 'PX', Math.max(maxAgeMs * 20, 600_000));
  return data;
}

export async function cachedDashboardSummary(db: Db, redis: Redis, accountId: string, maxAgeMs: number = PORTFOLIO_DEFAULTS.summaryMaxAgeMs): Promise<Summary> {
  const [raw, v] = await redis.mget(SNAPSHOT(accountId), VERSION(accountId));
  const version = v ?? null;
  const snap = raw ? (JSON.parse(raw) as { at: number; version: string; data: Summary }) : null;
  if (!snap || snap.version !== (version ?? '0')) return computeSnapshot(db, redis, accountId, version, maxAgeMs);
  if (Date.now() - snap.at > maxAgeMs && (await redis.set(REFRESHING(accountId), '1', 'PX', 60_000, 'NX'))) {
    void computeSnapshot(db, redis, accountId, version, maxAgeMs)
      .catch(() => undefined)
      .finally(() => void redis.del(REFRESHING(accountId)).catch(() => undefined));
  }
  return snap.data;
}

/** After a write to the account's domains: the next summary read computes afresh. */
export async function invalidateSummary(redis: Redis, accountId: string): Promise<void> {
  await redis.incr(VERSION(accountId));
}
