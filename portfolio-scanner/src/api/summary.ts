import type { Db } from 'mongodb';
import { SPF_LOOKUP_LIMIT } from '@dv/contracts';
import { NO_GATEWAY } from './domain-query.ts';
import { changes, changeView, domains } from './views.ts';

// The dashboard summary (spec "Dashboard summary"; docs/portfolio-scanner.md "API"), over the same
// domains the list shows (not removed), so each figure equals the list's total_count for the
// matching filter. Read from the account documents' copied scan fields through their indexes:
// counts and groupings only, no document of the corpus is read.

const DAY_MS = 86_400_000;
export const RECENT_CHANGES = 20;
const RECENT_DAYS = 7;

const pct = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 100);

export async function dashboardSummary(db: Db, accountId: string, now = new Date()) {
  const base = { account_id: accountId, status: { $ne: 'removed' as const } };
  const coll = domains(db);
  const since7d = new Date(now.getTime() - RECENT_DAYS * DAY_MS);
  const [total, gateways, dmarc, spfMissing, spfOver, fresh24, fresh7, attention, changed] = await Promise.all([
    coll.countDocuments(base),
    coll.aggregate<{ _id: string | null; count: number }>([{ $match: base }, { $group: { _id: '$email_gateway', count: { $sum: 1 } } }]).toArray(),
    coll.aggregate<{ _id: string | null; count: number }>([{ $match: base }, { $group: { _id: '$dmarc_policy_p', count: { $sum: 1 } } }]).toArray(),
    coll.countDocuments({ ...base, spf: null }),
    coll.countDocuments({ ...base, spf: { $ne: null }, spf_total_lookups: { $gt: SPF_LOOKUP_LIMIT } }),
    coll.countDocuments({ ...base, scanned_at: { $gte: new Date(now.getTime() - DAY_MS) } }),
    coll.countDocuments({ ...base, scanned_at: { $gte: since7d } }),
    coll.countDocuments({ ...base, needs_attention: true }),
    coll.find({ ...base, last_change_at: { $gte: since7d } }, { projection: { domain: 1 } }).sort({ last_change_at: -1 }).limit(RECENT_CHANGES).toArray(),
  ]);
  const recent = changed.length === 0 ? [] : await changes(db).find({ domain_name: { $in: changed.map((d) => d.domain) }, detected_at: { $gte: since7d } }).sort({ detected_at: -1, id: -1 }).limit(RECENT_CHANGES).toArray();
  const dmarcCount = (k: string | null) => dmarc.find((d) => d._id === k)?.count ?? 0;
  const share = (n: number) => ({ count: n, percentage: pct(n, total) });
  return {
    total_domains: total,
    email_gateway_distribution: gateways
      .map((g) => ({ gateway_name: g._id ?? NO_GATEWAY, count: g.count, percentage: pct(g.count, total) }))
      .sort((a, b) => b.count - a.count || a.gateway_name.localeCompare(b.gateway_name)),
    dmarc_distribution: { reject: share(dmarcCount('reject')), quarantine: share(dmarcCount('quarantine')), none: share(dmarcCount('none')), missing: share(dmarcCount(null)) },
    spf_status: { valid: total - spfMissing - spfOver, over_limit: spfOver, missing: spfMissing },
    scan_freshness: { scanned_last_24h: fresh24, scanned_last_7d: fresh7, percentage_24h: pct(fresh24, total), percentage_7d: pct(fresh7, total) },
    recent_changes: recent.map(changeView),
    needs_attention_count: attention,
  };
}
