import { z } from 'zod';
import { LOAD_LEVELS, type LoadLevel } from '@dv/contracts';
import { jsonResponse } from '../http/problems.ts';
import { defineRoute } from '../http/route.ts';

// GET /v1/status: current load, queue depth, expected seconds per single check and per 1,000
// list items, and advice (free: needs a key, costs nothing).

const ADVICE: Record<LoadLevel, string> = {
  normal: 'Single checks usually finish within the request.',
  busy: 'Expect 202 from POST /v1/verify; poll status_url?wait=25 or use webhook_url.',
  saturated: 'Send lists as jobs with webhook_url or notify_email; do not poll tightly.',
};

const statusSchema = z
  .object({
    load: z.enum(LOAD_LEVELS),
    queue: z.object({ single: z.number().int(), list: z.number().int(), depth: z.number().int() }),
    seconds_per_single: z.number(),
    seconds_per_1000: z.number(),
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
      throughput_per_s: l.throughput_per_s,
      advice: ADVICE[l.load],
      source: l.source,
      at: l.at,
    };
    return { status: 200, body: out };
  },
});
