import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { idParams, scanResultSchema } from '../schemas.ts';
import { accountScanResult, findDomain } from '../views.ts';
import { NOT_IN_ACCOUNT } from './domain-detail.ts';

export const getScanResults = defineRoute({
  method: 'get',
  path: '/api/v1/domains/{id}/scan-results/',
  operationId: 'get_scan_results',
  summary: 'Latest scan result',
  description:
    '`data` is null until the domain\'s first scan is stored. The latest scan is served at once, even one made before the account added the domain; ' +
    'its change-tracking fields (`previous_*`, `*_changed_date`) are null for a change detected before then, except on plans with the global domain view.',
  tags: ['domains'],
  params: idParams,
  responses: { '200': { description: 'The latest scan.', content: { 'application/json': { schema: okSchema('ScanResultResponse', scanResultSchema.nullable()) } } }, '404': NOT_IN_ACCOUNT },
  handle: async ({ ctx, caller, input }) => {
    const d = await findDomain(ctx.db, caller.account._id, input.params.id);
    return ok(await accountScanResult(ctx.db, d, caller.plan.globalDomainView));
  },
});
