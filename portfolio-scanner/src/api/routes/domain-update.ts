import { z } from 'zod';
import type { AccountDomainDoc } from '@dv/contracts';
import { setDomainStatus } from '../domain-status.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { DOMAIN_STATUSES, domainDetailSchema, idParams } from '../schemas.ts';
import { domainDetail, domains, findDomain } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';
import { domainLimitError } from '../plan-usage.ts';
import { invalidateSummary } from '../summary.ts';

// The user fields of a domain (spec: folder_id, is_favorite, tags, notes, custom_label, status),
// which the spec shows but gives no route for. Fields left out are kept; null clears.

const body = z
  .strictObject({
    folder_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().optional().meta({ description: 'A folder id of your choosing (folders are numbers you assign), or null.' }),
    is_favorite: z.boolean().optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(50).optional().meta({ description: 'Replaces the tags (at most 50, 1-64 characters each; duplicates dropped).' }),
    notes: z.string().max(10_000).nullable().optional(),
    custom_label: z.string().max(200).nullable().optional(),
    status: z.enum(DOMAIN_STATUSES).optional().meta({ description: '`inactive` stops monitoring but keeps the domain listed; `removed` is DELETE; `active` monitors it again.' }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field' })
  .meta({ id: 'UpdateDomainRequest' });

export const updateDomain = defineRoute({
  method: 'patch',
  path: '/api/v1/domains/{id}/',
  operationId: 'update_domain',
  summary: 'Update a domain\'s folder, favourite flag, tags, notes, label or status',
  tags: ['domains'],
  params: idParams,
  body,
  responses: {
    '200': { description: 'The updated domain.', content: { 'application/json': { schema: okSchema('UpdateDomainResponse', domainDetailSchema) } } },
    '400': errorResponse('validation_error: an unknown field, a bad value, or no field at all.'),
    '404': NOT_IN_ACCOUNT,
    '409': errorResponse('domain_limit_reached: `status: active` for a removed domain while the account lists its plan\'s most domains.'),
  },
  handle: async ({ ctx, caller, input }) => {
    const doc = await findDomain(ctx.db, caller.account._id, input.params.id);
    const { status, tags, ...rest } = input.body;
    const set: Partial<AccountDomainDoc> = { ...rest, ...(tags ? { tags: [...new Set(tags)] } : {}) };
    if (Object.keys(set).length > 0) await domains(ctx.db).updateOne({ _id: doc._id }, { $set: set });
    if (status) {
      const change = await setDomainStatus(ctx.db, doc, status, ctx.intervalS, caller.plan.maxDomains).catch((err: unknown) => {
        throw domainLimitError(err, caller.plan);
      });
      if (change.scanNow.length > 0) await ctx.requestScan(change.scanNow).catch((err: Error) => ctx.log.warn({ err: err.message }, 'priority scan request failed; the planner will scan it'));
    }
    await invalidateSummary(ctx.redis, caller.account._id);
    return ok(await domainDetail(ctx.db, await findDomain(ctx.db, caller.account._id, doc.id), caller.plan.globalDomainView));
  },
});
