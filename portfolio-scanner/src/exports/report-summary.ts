import type { Db, Filter } from 'mongodb';
import { SPF_LOOKUP_LIMIT, type AccountDomainDoc } from '@dv/contracts';
import { NO_GATEWAY } from '../api/domain-query.ts';
import { domains } from '../api/views.ts';

// The figures at the head of a pdf report and in a zip's summary.json: the dashboard summary's
// distributions (same definitions, docs/portfolio-scanner.md "API"), but over the export's own
// filtered domains, in one aggregation pass.

const DAY_MS = 86_400_000;
const pct = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 100);

export interface ExportSummary {
  total_domains: number;
  email_gateway_distribution: { gateway_name: string; count: number; percentage: number }[];
  dmarc_distribution: Record<'reject' | 'quarantine' | 'none' | 'missing', { count: number; percentage: number }>;
  spf_status: { valid: number; over_limit: number; missing: number };
  scan_freshness: { scanned_last_24h: number; scanned_last_7d: number; percentage_24h: number; percentage_7d: number };
  needs_attention_count: number;
}

interface Facets {
  total: { n: number }[];
  gateways: { _id: string | null; count: number }[];
  dmarc: { _id: string | null; count: number }[];
  spf: { _id: 'valid' | 'over_limit' | 'missing'; count: number }[];
  fresh24: { n: number }[];
  fresh7: { n: number }[];
  attention: { n: number }[];
}

export async function exportSummary(db: Db, filter: Filter<AccountDomainDoc>, now = new Date()): Promise<ExportSummary> {
  const since = (ms: number) => new Date(now.getTime() - ms);
  const [f] = await domains(db)
    .aggregate<Facets>([
      { $match: filter },
      { $project: { _id: 0, email_gateway: 1, dmarc_policy_p: 1, spf: 1, spf_total_lookups: 1, scanned_at: 1, needs_attention: 1 } },
      {
        $facet: {
          total: [{ $count: 'n' }],
          gateways: [{ $group: { _id: '$email_gateway', count: { $sum: 1 } } }],
          dmarc: [{ $group: { _id: '$dmarc_policy_p', count: { $sum: 1 } } }],
          spf: [{ $group: { _id: { $cond: [{ $eq: ['$spf', null] }, 'missing', { $cond: [{ $gt: ['$spf_total_lookups', SPF_LOOKUP_LIMIT] }, 'over_limit', 'valid'] }] }, count: { $sum: 1 } } }],
          fresh24: [{ $match: { scanned_at: { $gte: since(DAY_MS) } } }, { $count: 'n' }],
          fresh7: [{ $match: { scanned_at: { $gte: since(7 * DAY_MS) } } }, { $count: 'n' }],
          attention: [{ $match: { needs_attention: true } }, { $count: 'n' }],
        },
      },
    ])
    .toArray();
  const n = (a: { n: number }[] | undefined) => a?.[0]?.n ?? 0;
  const total = n(f?.total);
  const dmarc = (k: string | null) => f?.dmarc.find((d) => (d._id ?? null) === k)?.count ?? 0;
  const spf = (k: string) => f?.spf.find((d) => d._id === k)?.count ?? 0;
  const share = (c: number) => ({ count: c, percentage: pct(c, total) });
  const fresh24 = n(f?.fresh24);
  const fresh7 = n(f?.fresh7);
  return {
    total_domains: total,
    email_gateway_distribution: (f?.gateways ?? [])
      .map((g) => ({ gateway_name: g._id ?? NO_GATEWAY, count: g.count, percentage: pct(g.count, total) }))
      .sort((a, b) => b.count - a.count || a.gateway_name.localeCompare(b.gateway_name)),
    dmarc_distribution: { reject: share(dmarc('reject')), quarantine: share(dmarc('quarantine')), none: share(dmarc('none')), missing: share(dmarc(null)) },
    spf_status: { valid: spf('valid'), over_limit: spf('over_limit'), missing: spf('missing') },
    scan_freshness: { scanned_last_24h: fresh24, scanned_last_7d: fresh7, percentage_24h: pct(fresh24, total), percentage_7d: pct(fresh7, total) },
    needs_attention_count: n(f?.attention),
  };
}
