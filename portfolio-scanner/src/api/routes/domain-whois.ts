import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { idParams, whoisSchema } from '../schemas.ts';
import { findDomain, whois, whoisView } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';

export const getWhois = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/whois/',
  operationId: 'getWhois',
  summary: 'Registration (WHOIS/RDAP) record',
  description: '`data` is null until the registration data is first fetched.',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The WHOIS record.', content: { 'application/json': { schema: okSchema('WhoisResponse', whoisSchema.nullable()) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => {
    const d = await findDomain(ctx.db, caller.account._id, input.params.id);
    return ok(whoisView(await whois(ctx.db).findOne({ _id: d.domain })));
  },
});
