import { setDomainStatus } from '../domain-status.ts';
import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { domainDetailSchema, idParams } from '../schemas.ts';
import { domainDetail, findDomain } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';
import { invalidateSummary } from '../summary.ts';

export const deleteDomain = defineRoute({
  method: 'delete',
  path: '/api/v1/domains/{id}/',
  operationId: 'delete_domain',
  summary: 'Stop monitoring a domain (status removed)',
  description: 'The domain leaves the list and the dashboard; its id and user fields are kept, and adding the name again (or PATCH status active) brings it back. Idempotent.',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The domain, now removed.', content: { 'application/json': { schema: okSchema('DeleteDomainResponse', domainDetailSchema) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => {
    const doc = await findDomain(ctx.db, caller.account._id, input.params.id);
    await setDomainStatus(ctx.db, doc, 'removed', ctx.intervalS);
    await invalidateSummary(ctx.redis, caller.account._id);
    return ok(await domainDetail(ctx.db, await findDomain(ctx.db, caller.account._id, doc.id), caller.plan.globalDomainView));
  },
});
