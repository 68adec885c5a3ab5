import { pipeline } from 'node:stream/promises';
import type { ObjectId } from 'mongodb';
import { z } from 'zod';
import { activePortfolioKeyById } from '@dv/accounts';
import { PORTFOLIO_PLANS } from '@dv/contracts';
import { checkExportLink, exportBucket, exportsColl } from '../../exports/index.ts';
import type { ApiContext } from '../context.ts';
import { errorResponse, PortfolioError } from '../errors.ts';
import { defineRoute } from '../route.ts';

// The signed file link: no key (a link can go to a browser or a download tool), so no rate-limit
// headers; the signature (HMAC of path, key number and expiry, constant-time compare) is checked
// before the export is looked up, so a forged link learns nothing about which task ids exist.
// Then what a call with the key would check, read at this moment: the key the link was made for
// still works, its account is active and its plan still includes the API. A link handed on must
// not outlive the access of whoever made it.

export const downloadExport = defineRoute({
  method: 'get',
  path: '/api/v1/exports/{task_id}/file/',
  operationId: 'download_export',
  summary: 'Download an export file through its signed link',
  description: 'The `file_url` of a completed export. Any replica serves it, streamed from the file store.',
  tags: ['exports'],
  auth: false,
  params: z.object({ task_id: z.string().min(1).max(64) }),
  query: z.object({ key: z.string().max(20).optional(), expires: z.string().max(20).optional(), signature: z.string().max(100).optional() }),
  responses: {
    '200': { description: 'The file (text/csv, application/pdf or application/zip) as an attachment.', content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } } },
    '400': errorResponse('validation_error: a task id or query value of the wrong shape (over-long, repeated).'),
    '401': errorResponse('invalid_api_key: the key the link was made for is revoked or expired.'),
    '403': errorResponse('invalid_signature: the link is forged, altered or expired; take a fresh one from GET /api/v1/exports/. account_inactive, api_access_not_included: the account was deactivated or its plan no longer includes the API.'),
    '404': errorResponse('not_found: the export is gone (expired and deleted).'),
  },
  handle: async ({ ctx, input, res }) => {
    const taskId = input.params.task_id;
    const check = checkExportLink(taskId, input.query.key, input.query.expires, input.query.signature, ctx.exports.secret);
    if (check !== 'ok') throw new PortfolioError('invalid_signature', check === 'expired' ? 'This link has expired; take a fresh one from GET /api/v1/exports/.' : 'This link is not valid; take a fresh one from GET /api/v1/exports/.');
    const job = await exportsColl(ctx.db).findOne({ _id: taskId, status: 'completed' });
    if (!job?.file_id) throw new PortfolioError('not_found', 'This export no longer exists (exports are deleted when they expire).');
    await requireAccess(ctx, job.account_id, input.query.key!);
    res.status(200);
    res.setHeader('Content-Type', job.content_type ?? 'application/octet-stream');
    res.setHeader('Content-Length', String(job.file_size));
    // Our own name (portfolio-export-<id>.<ext>): nothing a client chose goes into the header.
    res.setHeader('Content-Disposition', `attachment; filename="${job.file_name ?? 'portfolio-export'}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await pipeline(exportBucket(ctx.db).openDownloadStream(job.file_id as ObjectId), res);
  },
});

/** The link's key (checked signature: `keyNo` is digits) works, and its account may still use the API. */
async function requireAccess(ctx: ApiContext, accountId: string, keyNo: string): Promise<void> {
  const found = await activePortfolioKeyById(ctx.db, `${accountId}:${Number(keyNo)}`);
  if (!found) throw new PortfolioError('invalid_api_key', 'The API key this link was made for is revoked or expired; take a fresh link with an active key.');
  if (found.account.status !== 'active') throw new PortfolioError('account_inactive', 'This account is inactive; contact support.');
  const plan = found.account.portfolio_plan ? PORTFOLIO_PLANS[found.account.portfolio_plan] : undefined;
  if (!plan?.apiAccess) throw new PortfolioError('api_access_not_included', `The ${plan?.label ?? "account's"} plan does not include API access; exports are downloaded through the API.`);
}
