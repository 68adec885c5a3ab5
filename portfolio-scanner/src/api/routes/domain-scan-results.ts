import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { idParams, scanResultSchema } from '../schemas.ts';
import { corpus, findDomain, scanResultView } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';

export const getScanResults = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/scan-results/',
  operationId: 'getScanResults',
  summary: 'Latest scan result',
  description: '`data` is null until the domain\'s first scan is stored.',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The latest scan.', content: { 'application/json': { schema: okSchema('ScanResultResponse', scanResultSchema.nullable()) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => {
    const d = await findDomain(ctx.db, caller.account._id, input.params.id);
    return ok(scanResultView((await corpus(ctx.db).findOne({ _id: d.domain }, { projection: { result: 1 } }))?.result ?? null));
  },
});
