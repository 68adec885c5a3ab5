import { ApiError } from '@dv/runtime';
import type { Caller } from './caller.ts';
import { sourceBaseUrl } from './config.ts';
import type { LookupContext } from './context.ts';
import { TargetError, type ToolInput, type ToolName, type ToolOutput } from './engine.ts';
import { buildEnvelope, sourceLink, type LookupEnvelope, type Tier } from './envelope.ts';
import type { Surface } from './metrics.ts';
import { checkRecord, checkTarget } from './target.ts';
import { toolSpec, type ToolSpec } from './tools.ts';

// One lookup, the same for REST and MCP: check the input (no DNS query for a bad one), answer from
// the cache when possible (free), else spend one unit of the caller's daily allowance and run the
// engine. A lookup that fails on our side gives the unit back.

export interface LookupRequest {
  tool: ToolName;
  /** Domain or IP (every tool but validate). */
  target?: string;
  detail?: 'full';
  /** validate only. */
  record?: string;
}

export async function performLookup(ctx: LookupContext, caller: Caller, req: LookupRequest, surface: Surface): Promise<LookupEnvelope> {
  const spec = toolSpec(req.tool);
  const count = (outcome: 'live' | 'cached' | 'invalid_target' | 'quota_exhausted' | 'error') => ctx.metrics.lookups.inc({ tool: spec.name, surface, outcome });

  let input: ToolInput;
  try {
    input = normaliseInput(ctx, spec, req);
  } catch (err) {
    count('invalid_target');
    throw err;
  }

  const cached = await ctx.cache.get(spec.name, input).catch((err: Error) => {
    ctx.log.warn({ err: err.message }, 'response cache unreadable; looking up live');
    return undefined;
  });
  if (cached) {
    const state = await ctx.quotas[caller.tier].peek(caller.subject).catch((err: unknown) => quotaStoreDown(ctx, err));
    count('cached');
    ctx.metrics.cacheHits.inc({ tool: spec.name });
    return buildEnvelope(spec, cached, { source: sourceLink(sourceBaseUrl(ctx.config), spec, input), cache: 'cached', usage: { remaining_today: state.remaining, limit: state.limit, tier: caller.tier } });
  }

  const take = await ctx.quotas[caller.tier].take(caller.subject).catch((err: unknown) => quotaStoreDown(ctx, err));
  if (!take.allowed) {
    count('quota_exhausted');
    ctx.metrics.quotaRefusals.inc({ tier: caller.tier });
    throw quotaExhausted(ctx, caller.tier, take.limit, take.resetAtMs);
  }

  let output: ToolOutput;
  const endTimer = ctx.metrics.engineDuration.startTimer({ tool: spec.name });
  try {
    output = await withTimeout(ctx.engine.run(spec.name, input), ctx.config.LOOKUP_TIMEOUT_MS);
    // Judged after the run: its first NXDOMAIN may have been what set off the check.
    if (spec.target !== 'record') unlessResolverLies(ctx);
  } catch (err) {
    await take.refund().catch(() => undefined);
    if (err instanceof TargetError) {
      count('invalid_target');
      throw new ApiError('invalid_target', err.message, { target: input.target ?? null });
    }
    count('error');
    if (err instanceof ApiError) throw err;
    ctx.log.error({ err, tool: spec.name }, 'lookup failed');
    throw new ApiError('bad_gateway', 'The lookup failed on our side; it was not counted. Retry in a moment.');
  } finally {
    endTimer();
  }
  await ctx.cache.set(spec.name, input, output).catch((err: Error) => ctx.log.warn({ err: err.message }, 'could not store the answer in the response cache'));
  count('live');
  return buildEnvelope(spec, output, { source: sourceLink(sourceBaseUrl(ctx.config), spec, input), cache: 'live', usage: { remaining_today: take.remaining, limit: take.limit, tier: caller.tier } });
}

/**
 * While the resolver denies names that exist (or answers every name alike) an answer would say
 * "does not exist" or "lookup failed" on its word: 503 naming the resolver instead, not counted
 * and not cached, with when to come back.
 */
function unlessResolverLies(ctx: LookupContext): void {
  const sanity = ctx.engine.resolverSanity;
  if (!sanity || sanity.believed) return;
  throw new ApiError(
    'service_unavailable',
    `Our DNS resolver is unreliable right now (${sanity.detail}), so this lookup cannot tell what exists; it was not counted. Retry in ${sanity.retryAfterS} s.`,
    { reason: 'resolver_unreliable', resolver_state: sanity.state },
    { 'Retry-After': String(sanity.retryAfterS) },
  );
}

function normaliseInput(ctx: LookupContext, spec: ToolSpec, req: LookupRequest): ToolInput {
  if (spec.target === 'record') {
    const checked = checkRecord(req.record ?? '', ctx.config.MAX_RECORD_CHARS);
    if (!checked.ok) throw new ApiError('invalid_request', checked.reason, { field: 'record' });
    return { record: checked.record };
  }
  const checked = checkTarget(req.target ?? '', spec.target);
  if (!checked.ok) throw new ApiError('invalid_target', checked.reason, { target: printable(req.target ?? '') });
  return spec.detail && req.detail === 'full' ? { target: checked.target, detail: 'full' } : { target: checked.target };
}

/** The refused target echoed back safely: control characters escaped, length capped. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = s.slice(0, 300).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return s.length > 300 ? `${escaped}…` : escaped;
}

function quotaStoreDown(ctx: LookupContext, err: unknown): never {
  ctx.log.error({ err: (err as Error).message }, 'quota store unreachable');
  throw new ApiError('service_unavailable', 'The quota store is unreachable; retry in a few seconds.', {}, { 'Retry-After': '5' });
}

/** 429 with the advice the spec asks for: an anonymous client is told how to get a free key. */
export function quotaExhausted(ctx: LookupContext, tier: Tier, limit: number, resetAtMs: number): ApiError {
  const retryAfterS = Math.max(1, Math.ceil((resetAtMs - ctx.now()) / 1000));
  const base = ctx.config.PUBLIC_BASE_URL;
  const resetsAt = new Date(resetAtMs).toISOString();
  const common = { tier, limit, remaining_today: 0, resets_at: resetsAt, pricing: ctx.config.PRICING_URL };
  if (tier === 'anonymous') {
    return new ApiError(
      'quota_exhausted',
      `The anonymous allowance of ${limit} lookups per day for your IP address is used up; it resets at ${resetsAt} (00:00 UTC). ` +
        `Get a free API key for ${ctx.config.FREE_KEY_LOOKUPS_PER_DAY} lookups per day: call the MCP tool request_api_key with your email, ` +
        `or POST ${base}/v1/keys/request with {"email": "you@example.com"}, then open the link in the email and send the key as "Authorization: Bearer <key>". ` +
        'Cached answers stay free.',
      {
        ...common,
        free_key: {
          lookups_per_day: ctx.config.FREE_KEY_LOOKUPS_PER_DAY,
          mcp_tool: 'request_api_key',
          request_url: `${base}/v1/keys/request`,
          how: 'Give your email; open the verification link; the page shows your key once. Send it as Authorization: Bearer <key>.',
        },
      },
      { 'Retry-After': String(retryAfterS) },
    );
  }
  return new ApiError(
    'quota_exhausted',
    `The free key's allowance of ${limit} lookups per day is used up; it resets at ${resetsAt} (00:00 UTC). Paid plans offer higher volume and bulk lookups: ${ctx.config.PRICING_URL}`,
    common,
    { 'Retry-After': String(retryAfterS) },
  );
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError('timeout', `The lookup did not finish within ${Math.round(ms / 1000)} s; it was not counted. Retry later.`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
