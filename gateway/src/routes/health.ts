import { z } from 'zod';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';

export const API_VERSION = '1.0.0';

// GET /v1/health: unauthenticated liveness for customers and uptime monitors.

const healthSchema = z.object({ status: z.literal('ok'), service: z.literal('gateway'), api_version: z.string(), time: z.string() }).meta({ id: 'Health' });
export type HealthResponse = z.infer<typeof healthSchema>;

export const healthRoute = defineRoute({
  method: 'get',
  path: '/v1/health',
  operationId: 'health',
  summary: 'Liveness (no key)',
  tags: ['meta'],
  auth: false,
  responses: { '200': jsonResponse('Alive.', healthSchema) },
  handle: () => {
    const out: HealthResponse = { status: 'ok', service: 'gateway', api_version: API_VERSION, time: new Date().toISOString() };
    return { status: 200, body: out };
  },
});
