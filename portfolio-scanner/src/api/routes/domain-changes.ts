import { z } from 'zod';
import { ok, okSchema } from '../envelope.ts';
import { pageMeta, pageMetaSchema, pageQuery } from '../pagination.ts';
import { defineRoute } from '../route.ts';
import { changeSchema, idParams } from '../schemas.ts';
import { accountChanges, findDomain } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';

export const listChanges = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/changes/',
  operationId: 'list_changes',
  summary: 'DNS change history, newest first',
  description:
    'Changes of the tracked fields (mx, email_gateway, dmarc_policy_p, spf, …), kept 400 days: those detected since the account added the domain (`first_seen`; a re-add after removal starts afresh). ' +
    'On plans with the global domain view (Enterprise Max Premium), every change of the shared corpus.',
  tags: ['domains'],
  params: idParams,
  query: z.object(pageQuery),
  responses: { '200': { description: 'A page of changes.', content: { 'application/json': { schema: okSchema('ChangeList', z.array(changeSchema), pageMetaSchema) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input, req }) => {
    const d = await findDomain(ctx.db, caller.account._id, input.params.id);
    const { limit, offset } = input.query;
    const page = await accountChanges(ctx.db, d, caller.plan.globalDomainView, limit, offset);
    return ok(page.items, pageMeta(req, ctx.publicBaseUrl, page.total, limit, offset));
  },
});
