import { z } from 'zod';
import { ApiError } from '@dv/runtime';
import { quotaSubject } from '../client.ts';
import type { LookupContext } from '../context.ts';
import { ownerOf } from './store.ts';

// The free-key flow shared by the MCP tool request_api_key and POST /v1/keys/request:
// email → rate limits (per address, per client IP) → pending request in MongoDB → email with a
// single-use link → GET /v1/keys/verify?token=… shows a button → its POST issues the key.

export const emailSchema = z.email({ error: 'must be an email address' }).max(254).meta({ description: 'Where to send the verification link.', example: 'you@example.com' });

export interface KeyRequestAnswer {
  status: 'sent';
  email: string;
  expires_at: string;
  detail: string;
}

export async function requestFreeKey(ctx: LookupContext, rawEmail: string, ip: string): Promise<KeyRequestAnswer> {
  const parsed = emailSchema.safeParse(rawEmail.trim());
  if (!parsed.success) throw new ApiError('invalid_request', 'That is not a valid email address.', { field: 'email' });
  // The domain part is case-insensitive; the local part is kept as typed (RFC 5321), but limits and
  // ownership use the lower-cased whole so Case@X and case@x are one owner.
  const email = parsed.data;
  const { mailer } = ctx;
  if (!mailer) {
    ctx.metrics.keyRequests.inc({ outcome: 'disabled' });
    throw new ApiError('service_unavailable', 'Free-key requests are not available on this deployment (no mail relay configured).');
  }
  const perIp = await ctx.keyRequestLimits.perIp.take(quotaSubject(ip));
  const perEmail = perIp.allowed ? await ctx.keyRequestLimits.perEmail.take(ownerOf(email)) : undefined;
  if (!perIp.allowed || !perEmail?.allowed) {
    ctx.metrics.keyRequests.inc({ outcome: 'rate_limited' });
    await perIp.refund().catch(() => undefined);
    const resetAtMs = perIp.resetAtMs;
    const why = !perIp.allowed ? `${perIp.limit} key requests per day from one IP address` : `${perEmail?.limit} key requests per day for one email address`;
    throw new ApiError('rate_limited', `Too many key requests: at most ${why}. Check your inbox (and spam folder) for an earlier link, or try again after 00:00 UTC.`, { resets_at: new Date(resetAtMs).toISOString() }, { 'Retry-After': String(Math.max(1, Math.ceil((resetAtMs - ctx.now()) / 1000))) });
  }

  const ttlMs = ctx.config.KEY_LINK_TTL_MINUTES * 60_000;
  const request = await ctx.keys.createRequest(email, ttlMs);
  const link = `${ctx.config.PUBLIC_BASE_URL}/v1/keys/verify?token=${request.token}`;
  try {
    await mailer.sendVerification({ to: email, link, expiresAt: request.expiresAt, lookupsPerDay: ctx.config.FREE_KEY_LOOKUPS_PER_DAY });
  } catch (err) {
    ctx.metrics.keyRequests.inc({ outcome: 'mail_failed' });
    ctx.log.error({ err: (err as Error).message }, 'could not send a key verification email');
    await ctx.keys.deleteRequest(request.id).catch(() => undefined);
    await Promise.all([perIp.refund(), perEmail.refund()]).catch(() => undefined);
    throw new ApiError('service_unavailable', 'The verification email could not be sent; nothing was stored. Retry in a few minutes.', {}, { 'Retry-After': '60' });
  }
  ctx.metrics.keyRequests.inc({ outcome: 'sent' });
  return {
    status: 'sent',
    email,
    expires_at: request.expiresAt.toISOString(),
    detail:
      `A verification link was sent to ${email}. Open it before ${request.expiresAt.toISOString()} and press its button; the next page shows the free key (${ctx.config.FREE_KEY_LOOKUPS_PER_DAY} lookups per day) once. ` +
      'Then send it as "Authorization: Bearer <key>" on REST calls or in the MCP client configuration.',
  };
}

export interface IssuedKey {
  api_key: string;
  tier: 'free';
  lookups_per_day: number;
  created_at: string;
  detail: string;
}

export const EXPIRED_LINK_DETAIL = 'This verification link is unknown, was already used, or has expired. Ask for a new one with request_api_key or POST /v1/keys/request.';

export async function redeemVerification(ctx: LookupContext, token: string): Promise<IssuedKey> {
  const issued = await ctx.keys.redeem(token);
  if (!issued) throw new ApiError('verification_link_expired', EXPIRED_LINK_DETAIL);
  ctx.metrics.keysIssued.inc();
  return {
    api_key: issued.key,
    tier: 'free',
    lookups_per_day: ctx.config.FREE_KEY_LOOKUPS_PER_DAY,
    created_at: issued.doc.created_at.toISOString(),
    detail: 'Copy this key now: it is shown only once and stored only as a hash. Send it as "Authorization: Bearer <key>". Any earlier key for this email no longer works.',
  };
}
