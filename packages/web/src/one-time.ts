import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

// One-time, expiring tokens for links sent by email (sign-in, invitations). Redis holds the
// token's SHA-256, never the token; taking it is one GETDEL, so two clicks (or a mail scanner and a
// person) racing on the same link cannot both succeed. Looking at it (`peek`) does not use it up:
// a link's GET shows a button, and only the button's POST takes the token.

export class OneTimeTokens<T> {
  private readonly redis: Redis;
  private readonly prefix: string;
  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  private key(token: string): string {
    return `${this.prefix}:once:${createHash('sha256').update(token).digest('hex')}`;
  }

  async issue(payload: T, ttlMs: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(token), JSON.stringify(payload), 'PX', ttlMs);
    return token;
  }

  /** What the token holds while it is still unused and unexpired; it stays usable. */
  async peek(token: string): Promise<T | null> {
    if (!token || token.length > 100) return null;
    const raw = await this.redis.get(this.key(token));
    return raw ? (JSON.parse(raw) as T) : null;
  }

  /** Uses the token up; null when it was used, expired or never issued. */
  async take(token: string): Promise<T | null> {
    if (!token || token.length > 100) return null;
    const raw = await this.redis.getdel(this.key(token));
    return raw ? (JSON.parse(raw) as T) : null;
  }
}
