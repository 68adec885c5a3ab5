import type { Request } from 'express';
import { ApiError, TooManyAuthAttempts } from '@dv/runtime';
import { bearerKey, clientIp, quotaSubject } from './client.ts';
import type { LookupContext } from './context.ts';
import type { Tier, Usage } from './envelope.ts';
import { FREE_KEY_PREFIX, sha256 } from './keys/store.ts';

/** Who is asking: the tier and the subject its daily allowance is counted against. */
export interface Caller {
  tier: Tier;
  /** `ip:<address or /64>` or `key:<owner hash>`; never logged with a raw key. */
  subject: string;
  ip: string;
}

/** What each tier's daily allowance is counted against (also used by `npm run admin -- lookup-quota:reset`). */
export const QUOTA_SUBJECTS = {
  anonymous: (ip: string) => `ip:${quotaSubject(ip)}`,
  free: (owner: string) => `key:${owner}`,
} as const;

const UNAUTHORIZED_HEADERS = { 'WWW-Authenticate': 'Bearer realm="lookup"' };

/**
 * No Authorization header: anonymous, counted per client IP. A header that is not a valid active
 * free key is a 401, never a silent fall-back to anonymous, so a client learns its key is wrong.
 */
export async function resolveCaller(ctx: LookupContext, req: Request): Promise<Caller> {
  const ip = clientIp(req);
  const auth = bearerKey(req);
  if (auth.kind === 'none') return { tier: 'anonymous', subject: QUOTA_SUBJECTS.anonymous(ip), ip };
  if (auth.kind === 'malformed') throw new ApiError('invalid_api_key', 'Send the key as "Authorization: Bearer dk_free_…", or send no Authorization header to use the anonymous allowance.', {}, UNAUTHORIZED_HEADERS);
  if (!auth.key.startsWith(FREE_KEY_PREFIX)) throw new ApiError('invalid_api_key', 'This service accepts free keys (dk_free_…). Paid-plan keys belong to the paid API.', {}, UNAUTHORIZED_HEADERS);
  const subject = quotaSubject(ip);
  await ctx.keyAttempts.attempt(subject).catch((err: unknown) => {
    if (!(err instanceof TooManyAuthAttempts)) throw err;
    throw new ApiError('rate_limited', `Too many key checks from this address (unknown keys count more); retry in ${err.retryAfterSeconds} s.`, {}, { 'Retry-After': String(err.retryAfterSeconds) });
  });
  // Keys known to be unknown (or replaced) cost no MongoDB read while remembered.
  const hash = sha256(auth.key);
  const mark = ctx.unknownKeys.mark;
  const doc = ctx.unknownKeys.has(hash) ? null : await ctx.keys.findActive(auth.key);
  if (!doc) {
    ctx.unknownKeys.add(hash, mark);
    await ctx.keyAttempts.failed(subject);
    throw new ApiError('invalid_api_key', 'This key is unknown or was replaced by a newer key for the same email. Request a new one with request_api_key or POST /v1/keys/request.', {}, UNAUTHORIZED_HEADERS);
  }
  return { tier: 'free', subject: QUOTA_SUBJECTS.free(doc.owner), ip };
}

export async function currentUsage(ctx: LookupContext, caller: Caller): Promise<Usage & { used_today: number; resets_at: string }> {
  const state = await ctx.quotas[caller.tier].peek(caller.subject);
  return { remaining_today: state.remaining, limit: state.limit, tier: caller.tier, used_today: state.used, resets_at: new Date(state.resetAtMs).toISOString() };
}
