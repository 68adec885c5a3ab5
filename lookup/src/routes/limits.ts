import { z } from 'zod';
import { currentUsage } from '../caller.ts';
import { TIERS } from '../envelope.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { defineRoute } from './route.ts';

// GET /v1/meta/limits (body not shown in the spec): the caller's own standing today plus the
// rules of every tier. Reading it is free and never counts as a lookup.

export const limitsSchema = z
  .object({
    tier: z.enum(TIERS),
    limit: z.number().int().meta({ description: 'Live lookups per UTC day for this caller.' }),
    used_today: z.number().int(),
    remaining_today: z.number().int(),
    resets_at: z.string().meta({ description: 'Next 00:00 UTC, when every daily allowance resets.' }),
    tiers: z.object({
      anonymous: z.object({ lookups_per_day: z.number().int(), counted_per: z.string() }),
      free: z.object({ lookups_per_day: z.number().int(), counted_per: z.string(), get_one: z.string() }),
      paid: z.object({ description: z.string(), pricing: z.string() }),
    }),
    cache: z.object({ ttl_seconds: z.number().int(), cached_answers_count: z.boolean() }),
    targets_per_request: z.number().int(),
  })
  .meta({ id: 'Limits' });

export type LimitsResponse = z.infer<typeof limitsSchema>;

export const limitsRoute = defineRoute({
  method: 'get',
  path: '/v1/meta/limits',
  operationId: 'limits',
  summary: 'Your allowance today and the limits of every tier',
  tags: ['meta'],
  auth: 'optional',
  responses: {
    '200': jsonResponse('Allowance and limits.', limitsSchema),
    '401': problemResponse('The Authorization header is not a valid free key.'),
  },
  handle: async ({ ctx, caller }) => {
    const usage = await currentUsage(ctx, caller);
    const body: LimitsResponse = {
      tier: usage.tier,
      limit: usage.limit,
      used_today: usage.used_today,
      remaining_today: usage.remaining_today,
      resets_at: usage.resets_at,
      tiers: {
        anonymous: { lookups_per_day: ctx.config.ANONYMOUS_LOOKUPS_PER_DAY, counted_per: 'client IP address (IPv6: per /64)' },
        free: {
          lookups_per_day: ctx.config.FREE_KEY_LOOKUPS_PER_DAY,
          counted_per: 'free key (one active key per email address)',
          get_one: `MCP tool request_api_key, or POST ${ctx.config.PUBLIC_BASE_URL}/v1/keys/request with {"email": "..."}`,
        },
        paid: { description: 'Higher volume, bulk and multi-domain lookups through the paid API.', pricing: ctx.config.PRICING_URL },
      },
      cache: { ttl_seconds: ctx.config.CACHE_TTL_SECONDS, cached_answers_count: false },
      targets_per_request: 1,
    };
    return { status: 200, body };
  },
});
