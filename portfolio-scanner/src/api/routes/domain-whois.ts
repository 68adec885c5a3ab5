import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { idParams, whoisSchema } from '../schemas.ts';
import { findDomain, whois, whoisView } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';

export const getWhois = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/whois/',
  operationId: 'get_whois',
  summary: 'Registration (WHOIS/RDAP) record',
  description:
    'Always a record. Until registration data is fetched, `whois_status` is `pending` and `lookup_status` says why there is none: `pending` (not looked up yet), `deferred`, `no_rdap_service`, `refused` or `unreachable`, with `lookup_detail` in words and `next_fetch_at` when the next lookup is due. A failed refresh keeps the data of the last answered lookup (`fetched_at`) and reports its reason the same way.',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The WHOIS record.', content: { 'application/json': { schema: okSchema('WhoisResponse', whoisSchema) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => {
    const d = await findDomain(ctx.db, caller.account._id, input.params.id);
    return ok(whoisView(await whois(ctx.db).findOne({ _id: d.domain }), d.domain));
  },
});
