import { z } from 'zod';
import { COLLECTIONS } from '@dv/contracts';
import type { Account } from '@dv/accounts';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';

// GET /v1/account: plan, credits, limits (with today's usage), the calling key (public prefix
// only) and the webhook secret. Read fresh from MongoDB: credits move with every job.

const accountSchema = z
  .object({
    account: z.object({ id: z.string(), name: z.string(), email: z.string(), status: z.enum(['active', 'inactive']) }),
    plan: z.string(),
    credits: z.object({ balance: z.number().int() }),
    limits: z.object({
      requests_per_minute: z.number().int(),
      emails_per_day: z.number().int(),
      emails_per_job: z.number().int(),
      concurrent_jobs: z.number().int(),
      single_checks_in_flight: z.number().int(),
      emails_used_today: z.number().int().meta({ description: 'Live emails submitted since 00:00 UTC (sandbox uncounted).' }),
      daily_reset_at: z.string(),
    }),
    key: z.object({ id: z.string(), name: z.string(), prefix: z.string(), mode: z.enum(['live', 'sandbox']), created_at: z.string(), last_used_at: z.string().nullable() }),
    webhook_secret: z.string().meta({ description: 'HMAC-SHA256 key of X-Verify-Signature on webhooks.' }),
  })
  .meta({ id: 'Account' });

export type AccountResponse = z.infer<typeof accountSchema>;

export const accountRoute = defineRoute({
  method: 'get',
  path: '/v1/account',
  operationId: 'get_account',
  summary: 'Plan, credits, limits, key info and webhook secret',
  tags: ['account'],
  responses: { '200': jsonResponse('The account.', accountSchema) },
  handle: async ({ ctx, caller }) => {
    const a = (await ctx.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: caller.account._id })) ?? caller.account;
    const k = caller.key;
    const reset = new Date();
    reset.setUTCHours(24, 0, 0, 0);
    const out: AccountResponse = {
      account: { id: a._id, name: a.name, email: a.email, status: a.status },
      plan: a.plan,
      credits: { balance: a.credits },
      limits: {
        requests_per_minute: a.limits.requestsPerMinute,
        emails_per_day: a.limits.emailsPerDay,
        emails_per_job: a.limits.emailsPerJob,
        concurrent_jobs: a.limits.concurrentJobs,
        single_checks_in_flight: a.limits.singleChecksInFlight,
        emails_used_today: await ctx.limits.usedToday(a._id),
        daily_reset_at: reset.toISOString(),
      },
      key: { id: k._id, name: k.name, prefix: k.prefix, mode: k.mode, created_at: new Date(k.created_at).toISOString(), last_used_at: k.last_used_at ? new Date(k.last_used_at).toISOString() : null },
      webhook_secret: a.webhook_secret,
    };
    return { status: 200, body: out };
  },
});
