import { z } from 'zod';
import type { ToolInput, ToolName, ToolOutput } from './engine.ts';
import type { ToolSpec } from './tools.ts';

// The result envelope of the spec (every REST answer; MCP results carry the same content as
// structuredContent). The engine supplies summary/result/data/report; the service adds tool,
// source, cache and usage. The zod schema documents it in OpenAPI and is the MCP output schema.

export const TIERS = ['anonymous', 'free'] as const;
export type Tier = (typeof TIERS)[number];

export interface Usage {
  remaining_today: number;
  limit: number;
  tier: Tier;
}

export interface LookupEnvelope extends ToolOutput {
  tool: ToolName;
  source: string;
  cache: 'live' | 'cached';
  usage: Usage;
}

export const usageSchema = z
  .object({
    remaining_today: z.number().int().min(0).meta({ description: 'Live lookups left today (UTC day) for this caller.' }),
    limit: z.number().int().min(1).meta({ description: 'Live lookups allowed per UTC day for this tier.' }),
    tier: z.enum(TIERS).meta({ description: '`anonymous` (per client IP) or `free` (per free key).' }),
  })
  .meta({ id: 'Usage' });

/** The envelope's fields; MCP takes the raw shape (its tools' output schemas must be plain objects, not $refs). */
export const envelopeShape = {
  tool: z.string().meta({ description: 'Tool name, e.g. dns_lookup.', example: 'email_security_check' }),
  summary: z.string().meta({ description: 'Plain-English answer, ready to quote.' }),
  result: z.record(z.string(), z.unknown()).meta({ description: 'Display strings keyed by label (e.g. "Email Gateway", "SPF", "DMARC Policy (p)"); kept for backward compatibility.' }),
  data: z
    .looseObject({
      meta: z
        .looseObject({
          domain: z.string(),
          email_gateway: z.string().nullable(),
          dnssec: z.string().meta({ description: 'e.g. signed, unsigned, unknown.' }),
          timestamp: z.string().meta({ description: 'ISO 8601 time of the live lookup (a cached answer keeps its original time).' }),
        })
        .meta({ id: 'ResultMeta' }),
      records: z.record(z.string(), z.unknown()).meta({ description: 'Clean machine values keyed by record type, e.g. A: ["192.0.2.1"], MX: [{priority, exchange}].' }),
    })
    .meta({ description: 'Clean machine values.' }),
  report: z.string().meta({ description: 'Ready-to-quote text block.' }),
  source: z.string().meta({ description: 'Link to the matching web tool.' }),
  cache: z.enum(['live', 'cached']).meta({ description: '`live` when freshly looked up (counted), `cached` when served from the response cache (not counted).' }),
  usage: usageSchema,
};

export const envelopeSchema = z.object(envelopeShape).meta({ id: 'LookupResult', description: 'The result envelope of every lookup.' });

/** `<SOURCE_BASE_URL>/<slug>/<target>`; validate links to the validator page itself. */
export function sourceLink(base: string, spec: ToolSpec, input: ToolInput): string {
  if (spec.target === 'record' || !input.target) return `${base}/${spec.slug}`;
  return `${base}/${spec.slug}/${encodeURIComponent(input.target)}`;
}

export function buildEnvelope(spec: ToolSpec, output: ToolOutput, opts: { source: string; cache: 'live' | 'cached'; usage: Usage }): LookupEnvelope {
  // Engine fields first, then the service's, so an engine can never overwrite tool/source/cache/usage.
  return {
    tool: spec.name,
    summary: output.summary,
    result: output.result,
    data: output.data,
    report: output.report,
    source: opts.source,
    cache: opts.cache,
    usage: opts.usage,
  };
}
