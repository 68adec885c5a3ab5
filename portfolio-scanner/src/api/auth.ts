import type { Request, Response } from 'express';
import { KeyRejected, touchPortfolioKey, type Account } from '@dv/accounts';
import { PORTFOLIO_PLANS, type PortfolioKeyDoc } from '@dv/contracts';
import { TooManyAuthAttempts } from '@dv/runtime';
import type { ApiCaller, ApiContext } from './context.ts';
import { PortfolioError } from './errors.ts';

// Bearer-key authentication (spec "Authentication"): the key is found by its hash and compared in
// constant time, through ctx.auth (key-auth.ts, the KeyAuthenticator both APIs share): remembered
// in process, but a key revoked, an account deactivated or a plan changed is refused from the call
// after the change answers, on every replica. MongoDB lookups are limited per client address (429
// when over). Then the plan (403 without API access) and the limits; the limit headers are set on
// the response at once, so every later error carries them too.

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="portfolio"' };
const lastUsedWritten = new Map<string, number>();

export async function authenticate(ctx: ApiContext, req: Request, res: Response): Promise<ApiCaller> {
  const header = req.headers.authorization;
  const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!m) throw new PortfolioError('authentication_required', 'Send your API key as "Authorization: Bearer svc_live_…".', CHALLENGE);
  const now = new Date();
  const found = await ctx.auth.authenticate(m[1]!, req.ip ?? req.socket.remoteAddress ?? 'unknown').catch((err: unknown) => {
    if (err instanceof TooManyAuthAttempts) {
      const s = String(err.retryAfterSeconds);
      throw new PortfolioError('rate_limit_exceeded', `Too many authentication attempts from this address (unknown or wrong keys count more); retry in ${s} s.`, { 'Retry-After': s });
    }
    if (!(err instanceof KeyRejected)) throw err;
    const detail = err.reason === 'malformed' ? 'This is not a portfolio API key (they begin with svc_live_); keys of other services do not work here.' : 'The API key is not valid: it is wrong, revoked or expired.';
    throw new PortfolioError('invalid_api_key', detail, { 'WWW-Authenticate': 'Bearer realm="portfolio", error="invalid_token"' });
  });
  return admitCaller(ctx, res, found.account, found.key, now);
}

/**
 * What follows finding the key, for a key or for an OAuth token of the MCP connector made from one
 * (src/mcp): account status, the plan (403 without API access), the limits with their headers.
 */
export async function admitCaller(ctx: ApiContext, res: Response, account: Account, key: PortfolioKeyDoc, now = new Date()): Promise<ApiCaller> {
  if (account.status !== 'active') throw new PortfolioError('account_inactive', 'This account is inactive; contact support.');
  const plan = account.portfolio_plan ? PORTFOLIO_PLANS[account.portfolio_plan] : undefined;
  if (!plan?.apiAccess) {
    throw new PortfolioError('api_access_not_included', `The ${plan?.label ?? 'account\'s'} plan does not include API access; the API is available on Enterprise, Enterprise Max and Enterprise Max Premium.`);
  }
  try {
    const { headers } = await ctx.limits.take(key._id, account._id, plan);
    for (const k in headers) res.setHeader(k, headers[k]!);
  } catch (err) {
    if (err instanceof PortfolioError) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    throw err;
  }
  touch(ctx, key._id, now);
  return { account, key, plan };
}

/** last_used_at at most once per throttle window per key and process; never delays the call. */
function touch(ctx: ApiContext, keyId: string, now: Date): void {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now.getTime() - last < ctx.lastUsedThrottleMs) return;
  if (lastUsedWritten.size > 10_000) lastUsedWritten.clear();
  lastUsedWritten.set(keyId, now.getTime());
  void touchPortfolioKey(ctx.db, keyId, now).catch((err: Error) => ctx.log.debug({ err: err.message }, 'last_used_at update failed'));
}
