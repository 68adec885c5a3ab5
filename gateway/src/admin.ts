import type { Redis } from 'ioredis';
import { normalizeEmail } from '@dv/accounts';
import { OneTimeTokens } from '@dv/web';
import { GATEWAY_DEFAULTS as D } from './defaults.ts';
import type { SignInLink } from './web/context.ts';
import { consoleKeyPrefix, signInLinkUrl } from './web/links.ts';

// What the tools around the gateway do without its HTTP API (@dv/gateway/admin): the launcher and
// the admin CLI hand out a console sign-in link, the same one-time link the sign-in page mails
// (same Redis keys, same pages), so a person signs in without a mail round trip.

export interface ConsoleSignInLinkOptions {
  redis: Redis;
  /** The gateway's REDIS_KEY_PREFIX (default `gw:`). */
  redisKeyPrefix?: string;
  /** The gateway's PUBLIC_BASE_URL: the link opens there. */
  baseUrl: string;
  email: string;
  /** How long the link works (once); the sign-in page's own links last SIGN_IN_LINK_TTL_MINUTES. */
  ttlMs?: number;
}

export async function consoleSignInLink(o: ConsoleSignInLinkOptions): Promise<{ url: string; expiresAt: Date }> {
  const email = normalizeEmail(o.email);
  if (!email) throw new Error(`"${o.email}" is not an email address; give the address the person signs in with`);
  const ttlMs = o.ttlMs ?? D.signInLinkTtlMinutes * 60_000;
  const links = new OneTimeTokens<SignInLink>(o.redis, consoleKeyPrefix(o.redisKeyPrefix ?? D.redisKeyPrefix));
  const token = await links.issue({ email, next: '/app/' }, ttlMs);
  return { url: signInLinkUrl(o.baseUrl, token), expiresAt: new Date(Date.now() + ttlMs) };
}
