import { z } from 'zod';
import { exportJobSchema, exportsColl, exportView } from '../../exports/index.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse, PortfolioError } from '../errors.ts';
import { defineRoute } from '../route.ts';

export const getExport = defineRoute({
  method: 'get',
  path: '/api/v1/exports/{id}/',
  operationId: 'get_export',
  summary: 'One export job (status, progress, file link)',
  tags: ['exports'],
  params: z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: 'Export id in the account.' }) }),
  responses: { '200': { description: 'The export job.', content: { 'application/json': { schema: okSchema('ExportDetail', exportJobSchema) } } }, '404': errorResponse('not_found: no export with this id in the account (another account\'s ids too).') },
  handle: async ({ ctx, caller, input }) => {
    const d = await exportsColl(ctx.db).findOne({ account_id: caller.account._id, id: input.params.id });
    if (!d) throw new PortfolioError('not_found', `No export with id ${input.params.id} in this account.`);
    return ok(exportView(d, { baseUrl: ctx.publicBaseUrl, keyNo: caller.key.id, secret: ctx.exports.secret, linkTtlS: ctx.exports.linkTtlS }));
  },
});
