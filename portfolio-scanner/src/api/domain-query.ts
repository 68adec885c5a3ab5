import type { Filter } from 'mongodb';
import { z } from 'zod';
import type { AccountDomainDoc, CorpusDomainDoc } from '@dv/contracts';

// The list's filters (docs/portfolio-scanner.md "API", Filters). Each maps onto one index of
// portfolio_domains (collections.ts); `none`/`missing` select the null value.

export const DMARC_STATUSES = ['reject', 'quarantine', 'none', 'missing'] as const;
/** email_gateway value selecting domains where no gateway was detected. */
export const NO_GATEWAY = 'none';

export const domainFilterQuery = {
  search: z.string().trim().min(1).max(253).optional().meta({ description: 'Case-insensitive part of the domain name (A-label form), e.g. `acme` or `.co.uk`.' }),
  email_gateway: z.string().min(1).max(100).optional().meta({ description: `Exact gateway vendor name as returned in \`email_gateway\` (e.g. \`Google Workspace\`), or \`${NO_GATEWAY}\` for domains with no gateway detected.` }),
  dmarc_status: z.enum(DMARC_STATUSES).optional().meta({ description: 'DMARC policy `p`: reject, quarantine, none, or missing (no DMARC record, or not scanned yet).' }),
  folder_id: z
    .union([z.literal('none'), z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER)])
    .optional()
    .meta({ description: 'A folder id of the account, or `none` for domains in no folder.' }),
};

export const domainFilterSchema = z.object(domainFilterQuery);
export type DomainFilters = z.infer<typeof domainFilterSchema>;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Not removed: the list and the dashboard count active and inactive domains alike. */
export function accountFilter(accountId: string, f: DomainFilters): Filter<AccountDomainDoc> {
  const q: Filter<AccountDomainDoc> = { account_id: accountId, status: { $ne: 'removed' } };
  if (f.search) q.domain = { $regex: escapeRegex(f.search.toLowerCase()) };
  if (f.email_gateway !== undefined) q.email_gateway = f.email_gateway === NO_GATEWAY ? null : f.email_gateway;
  if (f.dmarc_status !== undefined) q.dmarc_policy_p = f.dmarc_status === 'missing' ? null : f.dmarc_status;
  if (f.folder_id !== undefined) q.folder_id = f.folder_id === 'none' ? null : f.folder_id;
  return q;
}

/** The global domain view: the active corpus (watched by some account). */
export function corpusFilter(f: DomainFilters): Filter<CorpusDomainDoc> {
  const q: Filter<CorpusDomainDoc> = { watchers: { $gt: 0 } };
  if (f.search) q._id = { $regex: escapeRegex(f.search.toLowerCase()) };
  if (f.email_gateway !== undefined) q['result.email_gateway'] = f.email_gateway === NO_GATEWAY ? null : f.email_gateway;
  if (f.dmarc_status !== undefined) q['result.dmarc_policy_p'] = f.dmarc_status === 'missing' ? null : f.dmarc_status;
  return q;
}
