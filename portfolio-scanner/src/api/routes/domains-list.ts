import { z } from 'zod';
import { accountFilter, corpusFilter, domainFilterQuery, type DomainFilters } from '../domain-query.ts';
import type { ApiCaller, ApiContext } from '../context.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { pageMeta, pageMetaSchema, pageQuery } from '../pagination.ts';
import { defineRoute } from '../route.ts';
import { domainItemSchema } from '../schemas.ts';
import { corpus, domainItem, domains } from '../views.ts';

export const listDomains = defineRoute({
  method: 'get',
  path: '/api/v1/domains/',
  operationId: 'list_domains',
  summary: 'List monitored domains',
  description:
    'The account\'s domains (active and inactive; removed ones are left out) by id. On plans with the global domain view (Enterprise Max Premium) the whole active corpus, by name; ' +
    'items the account does not monitor carry `id: null` and no `added_at`, and `folder_id` narrows to the account\'s own domains.',
  tags: ['domains'],
  query: z.object({ ...pageQuery, ...domainFilterQuery }),
  responses: { '200': { description: 'A page of domains.', content: { 'application/json': { schema: okSchema('DomainList', z.array(domainItemSchema), pageMetaSchema) } } }, '400': errorResponse('validation_error: a bad filter or page value.') },
  handle: async ({ ctx, caller, input, req }) => {
    const { limit, offset, ...filters } = input.query;
    const page = caller.plan.globalDomainView && filters.folder_id === undefined ? await globalPage(ctx, caller, filters, limit, offset) : await accountPage(ctx, caller, filters, limit, offset);
    return ok(page.items, pageMeta(req, ctx.publicBaseUrl, page.total, limit, offset));
  },
});

async function accountPage(ctx: ApiContext, caller: ApiCaller, f: DomainFilters, limit: number, offset: number) {
  const q = accountFilter(caller.account._id, f);
  const [docs, total] = await Promise.all([domains(ctx.db).find(q).sort({ id: 1 }).skip(offset).limit(limit).toArray(), domains(ctx.db).countDocuments(q)]);
  return { items: docs.map(domainItem), total };
}

async function globalPage(ctx: ApiContext, caller: ApiCaller, f: DomainFilters, limit: number, offset: number) {
  const q = corpusFilter(f);
  const [docs, total] = await Promise.all([corpus(ctx.db).find(q).sort({ _id: 1 }).skip(offset).limit(limit).toArray(), corpus(ctx.db).countDocuments(q)]);
  const mine = new Map((await domains(ctx.db).find({ account_id: caller.account._id, domain: { $in: docs.map((d) => d._id) } }).toArray()).map((d) => [d.domain, d]));
  const items = docs.map((c) => {
    const own = mine.get(c._id);
    if (own && own.status !== 'removed') return { ...domainItem(own), email_gateway: c.result?.email_gateway ?? null, dmarc_policy_p: c.result?.dmarc_policy_p ?? null, spf: c.result?.spf ?? null, scanned_at: c.result?.scanned_at.toISOString() ?? null };
    return { id: null, domain: c._id, email_gateway: c.result?.email_gateway ?? null, dmarc_policy_p: c.result?.dmarc_policy_p ?? null, spf: c.result?.spf ?? null, scanned_at: c.result?.scanned_at.toISOString() ?? null, added_at: null, folder_id: null, is_favorite: false, tags: [] };
  });
  return { items, total };
}
