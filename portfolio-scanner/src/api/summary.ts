import type { Db, Filter } from 'mongodb';
import { SPF_LOOKUP_LIMIT, type AccountDomainDoc } from '@dv/contracts';
import { NO_GATEWAY } from './domain-query.ts';
import { changes, changeView, domains } from './views.ts';

// The dashboard summary (spec "Dashboard summary"; docs/portfolio-scanner.md "API"), over the same
// domains the list shows (not removed), so each figure equals the list's total_count for the
// matching filter. Read from the account documents' copied scan fields through their indexes:
// counts and groupings only, no document of the corpus is read. `spf_status` has no index of its
// own and reads the account's documents (docs/portfolio-scanner.md "API").

const DAY_MS = 86_400_000;
export const RECENT_CHANGES = 20;
const RECENT_DAYS = 7;

const pct = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 100);

export async function dashboardSummary(db: Db, accountId: string, now = new Date()) {
  const coll = domains(db);
  const since7d = new Date(now.getTime() - RECENT_DAYS * DAY_MS);
  // Each count is over (account_id, field) alone, which an index answers without reading documents
  // (collections.ts); the few removed domains are counted apart (account_status) and subtracted,
  // rather than put in every filter, which would make every count read every document.
  const removed = { account_id: accountId, status: 'removed' as const };
  const live = async (f: Filter<AccountDomainDoc>) => {
    const [all, gone] = await Promise.all([coll.countDocuments({ account_id: accountId, ...f }), coll.countDocuments({ ...removed, ...f })]);
    return all - gone;
  };
  const grouped = async (field: 'email_gateway' | 'dmarc_policy_p', hint: string) => {
    const group = [{ $group: { _id: `$${field}`, count: { $sum: 1 } } }];
    const [all, gone] = await Promise.all([
      coll.aggregate<{ _id: string | null; count: number }>([{ $match: { account_id: accountId } }, { $project: { _id: 0, [field]: 1 } }, ...group], { hint }).toArray(),
      coll.aggregate<{ _id: string | null; count: number }>([{ $match: removed }, ...group]).toArray(),
    ]);
    const counts = new Map<string | null, number>();
    for (const g of all) counts.set(g._id ?? null, (counts.get(g._id ?? null) ?? 0) + g.count);
    for (const g of gone) counts.set(g._id ?? null, (counts.get(g._id ?? null) ?? 0) - g.count);
    return [...counts].filter(([, n]) => n > 0);
  };
  const [total, gateways, dmarc, spfMissing, spfOver, fresh24, fresh7, attention, changed] = await Promise.all([
    live({}),
    grouped('email_gateway', 'account_gateway'),
    grouped('dmarc_policy_p', 'account_dmarc'),
    live({ spf: null }),
    live({ spf: { $ne: null }, spf_total_lookups: { $gt: SPF_LOOKUP_LIMIT } }),
    live({ scanned_at: { $gte: new Date(now.getTime() - DAY_MS) } }),
    live({ scanned_at: { $gte: since7d } }),
    live({ needs_attention: true }),
    coll.find({ account_id: accountId, last_change_at: { $gte: since7d }, status: { $ne: 'removed' } }, { projection: { domain: 1 } }).sort({ last_change_at: -1 }).limit(RECENT_CHANGES).toArray(),
  ]);
  const recent = changed.length === 0 ? [] : await changes(db).find({ domain_name: { $in: changed.map((d) => d.domain) }, detected_at: { $gte: since7d } }).sort({ detected_at: -1, id: -1 }).limit(RECENT_CHANGES).toArray();
  const dmarcCount = (k: string | null) => dmarc.find(([v]) => v === k)?.[1] ?? 0;
  const share = (n: number) => ({ count: n, percentage: pct(n, total) });
  return {
    total_domains: total,
    email_gateway_distribution: gateways
      .map(([name, count]) => ({ gateway_name: name ?? NO_GATEWAY, count, percentage: pct(count, total) }))
      .sort((a, b) => b.count - a.count || a.gateway_name.localeCompare(b.gateway_name)),
    dmarc_distribution: { reject: share(dmarcCount('reject')), quarantine: share(dmarcCount('quarantine')), none: share(dmarcCount('none')), missing: share(dmarcCount(null)) },
    spf_status: { valid: total - spfMissing - spfOver, over_limit: spfOver, missing: spfMissing },
    scan_freshness: { scanned_last_24h: fresh24, scanned_last_7d: fresh7, percentage_24h: pct(fresh24, total), percentage_7d: pct(fresh7, total) },
    recent_changes: recent.map(changeView),
    needs_attention_count: attention,
  };
}
