import { z } from 'zod';
import { envelopeSchema, type LookupEnvelope } from '../envelope.ts';
import { performLookup } from '../lookups.ts';
import { TOOLS, type ToolSpec } from '../tools.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { defineRoute, retryAfterHeader, type RouteDef } from './route.ts';

// GET /v1/<slug>/{target}: the seven lookup routes. They differ only by data (the tool table), so
// one definition is instantiated per tool instead of seven copies of the same file.

/** Response type of every lookup route. */
export type ToolResponse = LookupEnvelope;

const targetParam = (spec: ToolSpec) =>
  z.object({
    target: z.string().meta({
      description:
        spec.target === 'domain_or_ip'
          ? 'One domain name or one IPv4/IPv6 address. Internationalised names are accepted and converted to punycode.'
          : 'One domain name (no scheme, path or email address). Internationalised names are accepted and converted to punycode.',
      example: 'example.com',
    }),
  });

const detailQuery = z.object({
  detail: z.enum(['full']).optional().meta({ description: '`full` returns the complete untruncated record set.' }),
});

export function toolRoute(spec: ToolSpec): RouteDef {
  const common = {
    method: 'get' as const,
    path: `/v1/${spec.slug}/{target}`,
    operationId: spec.name,
    summary: spec.title,
    description: spec.description,
    tags: ['lookups'],
    auth: 'optional' as const,
    params: targetParam(spec),
    responses: {
      '200': jsonResponse('The result envelope.', envelopeSchema),
      '400': problemResponse('Invalid target (code invalid_target) or query (code invalid_request); no DNS query was sent.'),
      '401': problemResponse('The Authorization header is not a valid free key (code invalid_api_key).'),
      '429': problemResponse('The daily allowance is used up (code quota_exhausted); the body says how to get a free key.', retryAfterHeader),
      '502': problemResponse('The lookup failed on our side (not counted).'),
      '503': problemResponse('Our DNS resolver is unreliable right now: it denies names that certainly exist, or answers every name alike (code service_unavailable, reason resolver_unreliable); nothing is said to exist or not. Not counted, not cached.', retryAfterHeader),
      '504': problemResponse('The lookup timed out (not counted).'),
    },
  };
  if (spec.detail) {
    return defineRoute({
      ...common,
      query: detailQuery,
      handle: async ({ ctx, caller, input }) => {
        const body: ToolResponse = await performLookup(ctx, caller, { tool: spec.name, target: input.params.target, detail: input.query.detail }, 'rest');
        return { status: 200, body };
      },
    });
  }
  return defineRoute({
    ...common,
    handle: async ({ ctx, caller, input }) => {
      const body: ToolResponse = await performLookup(ctx, caller, { tool: spec.name, target: input.params.target }, 'rest');
      return { status: 200, body };
    },
  });
}

export const toolRoutes: readonly RouteDef[] = TOOLS.filter((t) => t.target !== 'record').map(toolRoute);
