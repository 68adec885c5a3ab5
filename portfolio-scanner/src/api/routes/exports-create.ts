import { z } from 'zod';
import { exportLimits, exportRequestSchema, queueExport } from '../../exports/index.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { apiUrl } from './root.ts';

export const createExport = defineRoute({
  method: 'post',
  path: '/api/v1/exports/',
  operationId: 'create_export',
  summary: 'Queue a background export (csv, pdf, zip or diff)',
  description:
    'Answers at once with `{task_id, status: "queued"}` (202); an export worker writes the file and `GET /api/v1/exports/` shows its progress and, once completed, `file_url`. ' +
    'csv: one row per domain with the chosen columns. pdf: a report (figures, a DMARC chart, SPF and gateway tables, then a table of the domains, at most 10,000 rows). ' +
    'zip: domains.csv, domains.json, summary.json and manifest.json. diff: one CSV row per tracked field (mx, email_gateway, spf, dmarc, dmarc_policy_p, ns) of each domain whose value at `to` differs from its value at `from`. ' +
    'Filters select domains as the domain list does; every field is optional. The plan limits the exports queued or in progress at once, the exports kept, the bytes of their files and the rows of a csv, zip or diff export (`GET /api/v1/` shows each limit and the usage).',
  tags: ['exports'],
  body: exportRequestSchema,
  responses: {
    '202': {
      description: 'Queued.',
      content: {
        'application/json': {
          schema: okSchema('ExportQueued', z.object({ task_id: z.string(), status: z.literal('queued') }), z.object({ export_id: z.number().int(), poll: z.string().meta({ description: 'The exports list to poll.' }) })),
        },
      },
    },
    '400': errorResponse('validation_error: an unknown field, export_type, column or filter value, or a bad diff window.'),
    '409': errorResponse('too_many_exports: the account already has its plan\'s most exports queued or in progress. export_limit_reached: its plan\'s most exports stored, its export files\' bytes used up, or an export matching more rows than the plan allows. The detail names the limit.'),
  },
  handle: async ({ ctx, caller, input }) => {
    const q = await queueExport({ db: ctx.db, limits: exportLimits(caller.plan) }, caller.account, input.body);
    return ok({ task_id: q.task_id, status: q.status }, { export_id: q.id, poll: apiUrl(ctx, '/api/v1/exports/') }, 202);
  },
});
