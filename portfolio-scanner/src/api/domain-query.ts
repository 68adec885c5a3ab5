import type { Filter } from 'mongodb';
import { z } from 'zod';
import type { AccountDomainDoc, CorpusDomainDoc } from '@dv/contracts';
import { GATEWAY_FILTER_DESCRIPTION, GATEWAY_VALUES, gatewayFilterValue, NO_GATEWAY } from '../scan/gateway-values.ts';

// The list's filters (docs/portfolio-scanner.md "API", Filters). Each maps onto one index of
// portfolio_domains (collections.ts); `none`/`missing` select the null value. A gateway is matched
// case-insensitively by turning what the caller wrote into the one stored value (gateway-values.ts)
// and matching that exactly, so the filter stays on its index.

export const DMARC_STATUSES = ['reject', 'quarantine', 'none', 'missing'] as const;
export { NO_GATEWAY };

const GATEWAY_VALUE_LIST = GATEWAY_VALUES.map((g) => g.id).join(', ');

export const domainFilterQuery = {
  search: z.string().trim().min(1).max(253).optional().meta({ description: 'Case-insensitive part of the domain name (A-label form), e.g. `acme` or `.co.uk`.' }),
  email_gateway: z
    .string()
    .min(1)
    .max(253)
    .refine((v) => gatewayFilterValue(v) !== undefined, { message: `not a gateway value: use one of ${GATEWAY_VALUE_LIST}, a mail host's domain, or ${NO_GATEWAY}` })
    .optional()
    .meta({ description: GATEWAY_FILTER_DESCRIPTION }),
  dmarc_status: z.enum(DMARC_STATUSES).optional().meta({ description: 'DMARC policy `p`: reject, quarantine, none, or missing (no DMARC record, or not scanned yet).' }),
  folder_id: z
    .union([z.literal('none'), z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER)])
    .optional()
    .meta({ description: 'A folder id of the account, or `none` for domains in no folder.' }),
};

/** The stored value a filter selects; a value the schema would refuse (kept in an older export job) matches as written. */
function gatewayQuery(v: string): string | null {
  const stored = gatewayFilterValue(v);
  return stored === undefined ? v : stored;
}

export const domainFilterSchema = z.object(domainFilterQuery);
export type DomainFilters = z.infer<typeof domainFilterSchema>;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Not removed: the list and the dashboard count active and inactive domains alike. */
export function accountFilter(accountId: string, f: DomainFilters): Filter<AccountDomainDoc> {
  const q: Filter<AccountDomainDoc> = { account_id: accountId, status: { $ne: 'removed' } };
  if (f.search) q.domain = { $regex: escapeRegex(f.search.toLowerCase()) };
  if (f.email_gateway !== undefined) q.email_gateway = gatewayQuery(f.email_gateway);
  if (f.dmarc_status !== undefined) q.dmarc_policy_p = f.dmarc_status === 'missing' ? null : f.dmarc_status;
  if (f.folder_id !== undefined) q.folder_id = f.folder_id === 'none' ? null : f.folder_id;
  return q;
}

/** The global domain view: the active corpus (watched by some account). */
export function corpusFilter(f: DomainFilters): Filter<CorpusDomainDoc> {
  const q: Filter<CorpusDomainDoc> = { watchers: { $gt: 0 } };
  if (f.search) q._id = { $regex: escapeRegex(f.search.toLowerCase()) };
  if (f.email_gateway !== undefined) q['result.email_gateway'] = gatewayQuery(f.email_gateway);
  if (f.dmarc_status !== undefined) q['result.dmarc_policy_p'] = f.dmarc_status === 'missing' ? null : f.dmarc_status;
  return q;
}
