import { z } from 'zod';
import { exportJobSchema, exportsColl, exportView } from '../../exports/index.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { pageMeta, pageMetaSchema, pageQuery } from '../pagination.ts';
import { defineRoute } from '../route.ts';

export const listExports = defineRoute({
  method: 'get',
  path: '/api/v1/exports/',
  operationId: 'list_exports',
  summary: 'List export jobs (newest first) with status, progress and file links',
  description:
    'Poll this after `POST /api/v1/exports/`. A completed export carries `file_url`, a signed link that works without the key until the time it carries (an hour, or the file\'s expiry if sooner); every read gives a fresh link. ' +
    'Completed and failed exports, with their files, are deleted at `expires_at` (7 days after completion by default).',
  tags: ['exports'],
  query: z.object(pageQuery),
  responses: { '200': { description: 'A page of export jobs.', content: { 'application/json': { schema: okSchema('ExportList', z.array(exportJobSchema), pageMetaSchema) } } }, '400': errorResponse('validation_error: a bad page value.') },
  handle: async ({ ctx, caller, input, req }) => {
    const { limit, offset } = input.query;
    const q = { account_id: caller.account._id };
    const [docs, total] = await Promise.all([exportsColl(ctx.db).find(q).sort({ id: -1 }).skip(offset).limit(limit).toArray(), exportsColl(ctx.db).countDocuments(q)]);
    const link = { baseUrl: ctx.publicBaseUrl, keyNo: caller.key.id, secret: ctx.exports.secret, linkTtlS: ctx.exports.linkTtlS };
    return ok(
      docs.map((d) => exportView(d, link)),
      pageMeta(req, ctx.publicBaseUrl, total, limit, offset),
    );
  },
});
