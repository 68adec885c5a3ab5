import { z } from 'zod';
import { COLLECTIONS, type EventDoc } from '@dv/contracts';
import { queryInt } from '../http/common.ts';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';

// GET /v1/events?after=<cursor>&limit=: the account's job.completed events in order. The cursor
// is the event's per-account sequence number as text; `0` (or no `after`) starts at the beginning.
// next_cursor is the last event's cursor (or `after` unchanged when there is nothing new), so a
// client keeps polling with it and sees every finished job once.

const eventSchema = z
  .object({
    id: z.string(),
    type: z.literal('job.completed'),
    cursor: z.string(),
    job_id: z.string(),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()).meta({ description: 'Single verifies carry data.result; lists carry counts and results_url.' }),
  })
  .meta({ id: 'Event' });

export interface EventsResponse {
  events: z.infer<typeof eventSchema>[];
  next_cursor: string;
  has_more: boolean;
}

export const eventsRoute = defineRoute({
  method: 'get',
  path: '/v1/events',
  operationId: 'list_events',
  summary: 'Pull feed of job.completed events',
  tags: ['events'],
  query: z.object({
    after: z.string().regex(/^\d{1,15}$/, 'must be a cursor from next_cursor, or 0 to start').optional().meta({ description: 'Cursor; 0 starts at the beginning.', example: '0' }),
    limit: queryInt(1, 500, 100),
  }),
  responses: {
    '200': jsonResponse('Events after the cursor, oldest first.', z.object({ events: z.array(eventSchema), next_cursor: z.string(), has_more: z.boolean() }).meta({ id: 'EventPage' })),
  },
  handle: async ({ ctx, input, caller }) => {
    const after = Number(input.query.after ?? '0');
    const docs = await ctx.db
      .collection<EventDoc>(COLLECTIONS.events.name)
      .find({ account_id: caller.account._id, seq: { $gt: after } })
      .sort({ seq: 1 })
      .limit(input.query.limit + 1)
      .toArray();
    const page = docs.slice(0, input.query.limit);
    const out: EventsResponse = {
      events: page.map((e) => ({ id: e._id, type: e.type, cursor: String(e.seq), job_id: e.job_id, created_at: new Date(e.created_at).toISOString(), data: e.data })),
      next_cursor: page.length > 0 ? String(page[page.length - 1]!.seq) : String(after),
      has_more: docs.length > input.query.limit,
    };
    return { status: 200, body: out };
  },
});
