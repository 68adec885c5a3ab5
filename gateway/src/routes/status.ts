import { z } from 'zod';
import { LOAD_LEVELS, LOAD_REASONS, type LoadLevel, type LoadReason } from '@dv/contracts';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';

// GET /v1/status: current load, queue depth, expected seconds per single check and per 1,000
// list items, and advice (free: needs a key, costs nothing).

const ADVICE: Record<LoadLevel, string> = {
  normal: 'Single checks usually finish within the request.',
  busy: 'Expect 202 from POST /v1/verify; poll status_url?wait=25 or use webhook_url.',
  saturated: 'Send lists as jobs with webhook_url or notify_email; do not poll tightly.',
};

const REASON_ADVICE: Record<LoadReason, string> = {
  no_probe_capacity: 'No probe node is available right now: live checks wait in the queue and resume when capacity returns, so no time estimate is given. Sandbox keys are unaffected. Use webhook_url or notify_email rather than polling.',
};

const statusSchema = z
  .object({
    load: z.enum(LOAD_LEVELS),
    queue: z.object({ single: z.number().int(), list: z.number().int(), depth: z.number().int() }),
    seconds_per_single: z.number().nullable().meta({ description: 'null while no estimate is honest (see reason).' }),
    seconds_per_1000: z.number().nullable(),
    reason: z.enum(LOAD_REASONS).nullable().meta({ description: 'Why the service cannot work as usual: no_probe_capacity (no probe node alive; live checks wait).' }),
    throughput_per_s: z.number(),
    advice: z.string(),
    source: z.enum(['scheduler', 'fallback']).meta({ description: 'fallback: no fresh scheduler figures; defaults and raw queue counts.' }),
    at: z.string(),
  })
  .meta({ id: 'ServiceStatus' });

export type StatusResponse = z.infer<typeof statusSchema>;

export const statusRoute = defineRoute({
  method: 'get',
  path: '/v1/status',
  operationId: 'get_service_status',
  summary: 'Load, queue depth and expected speed',
  tags: ['account'],
  responses: { '200': jsonResponse('Current figures.', statusSchema) },
  handle: async ({ ctx }) => {
    const l = await ctx.load.current();
    const out: StatusResponse = {
      load: l.load,
      queue: { single: l.queue.single, list: l.queue.list, depth: l.queue.single + l.queue.list },
      seconds_per_single: l.seconds_per_single,
      seconds_per_1000: l.seconds_per_1000,
      reason: l.reason,
      throughput_per_s: l.throughput_per_s,
      advice: l.reason ? REASON_ADVICE[l.reason] : ADVICE[l.load],
      source: l.source,
      at: l.at,
    };
    return { status: 200, body: out };
  },
});
