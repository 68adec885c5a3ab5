import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { domainDetailSchema, idParams } from '../schemas.ts';
import { domainDetail, findDomain } from '../views.ts';

export const NOT_IN_ACCOUNT = errorResponse('not_found: no domain with this id in the account (another account\'s ids answer the same).');

export const getDomain = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/',
  operationId: 'get_domain',
  summary: 'Domain detail with its latest scan, recent changes and WHOIS',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The domain.', content: { 'application/json': { schema: okSchema('DomainDetailResponse', domainDetailSchema) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => ok(await domainDetail(ctx.db, await findDomain(ctx.db, caller.account._id, input.params.id), caller.plan.globalDomainView)),
});
