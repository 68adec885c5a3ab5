// Politeness gates shared by every replica through Redis, per (provider, source IP):
// concurrent sessions (a semaphore of leases that expire on their own, so a dead replica's slot
// frees itself), new sessions per minute (a sliding window), provider pauses after throttling and
// IP blocks after policy blocks. One Lua script decides and takes a slot atomically, on Redis's
// clock, so replicas with skewed clocks still agree. The limits themselves are pure (limitsFor).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { throttlePauseMs, type ProviderRow, type ThrottlePause } from '@dv/verdict';
import type { SchedulerConfig } from '../config.ts';

export interface Limits {
  maxSessions: number;
  sessionsPerMin: number;
  rcptsPerSession: number;
}

/** The provider table's politeness, overridden by POLITE_* (0 = keep the table's), capped by MAX_RCPTS_PER_SESSION and by a learned RCPT limit. */
export function limitsFor(
  provider: Pick<ProviderRow, 'politeness'>,
  config: Pick<SchedulerConfig, 'POLITE_MAX_SESSIONS' | 'POLITE_SESSIONS_PER_MIN' | 'POLITE_RCPTS_PER_SESSION' | 'MAX_RCPTS_PER_SESSION'>,
  learnedRcpts: number | null = null,
): Limits {
  const p = provider.politeness;
  const rcpts = config.POLITE_RCPTS_PER_SESSION || p.maxRcptsPerSession;
  return {
    maxSessions: config.POLITE_MAX_SESSIONS || p.maxConcurrentSessions,
    sessionsPerMin: config.POLITE_SESSIONS_PER_MIN || p.newSessionsPerMinute,
    rcptsPerSession: Math.max(1, Math.min(rcpts, config.MAX_RCPTS_PER_SESSION, learnedRcpts ?? Infinity)),
  };
}

export type GateResult =
  | { ok: true; leaseId: string }
  /** `unavailable`: Redis did not answer (dispatch.ts waits and asks again). */
  | { ok: false; reason: 'blocked' | 'paused' | 'concurrency' | 'rate' | 'unavailable'; waitMs: number };

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', KEYS[4]) == 1 then return {'blocked', redis.call('PTTL', KEYS[4])} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'paused', redis.call('PTTL', KEYS[3])} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'concurrency', tonumber(first[2]) - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60000)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'rate', tonumber(first[2]) + 60000 - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], now, ARGV[4])
redis.call('PEXPIRE', KEYS[2], 60000)
return {'ok', 0}
`;

const LEARN_MIN = `
local cur = tonumber(redis.call('GET', KEYS[1]))
local n = tonumber(ARGV[1])
if cur ~= nil and cur < n then n = cur end
redis.call('SET', KEYS[1], n, 'EX', tonumber(ARGV[2]))
return n
`;

export class Politeness {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly leaseMs: number;

  constructor(opts: { redis: Redis; prefix: string; leaseMs: number }) {
    this.redis = opts.redis;
    this.prefix = opts.prefix;
    this.leaseMs = opts.leaseMs;
  }

  private key(kind: string, provider: string, ipKey: string): string {
    return `${this.prefix}${kind}:${provider}:${ipKey}`;
  }

  async acquire(provider: string, ipKey: string, limits: Limits): Promise<GateResult> {
    const leaseId = randomUUID();
    const keys = ['sem', 'rate', 'pause', 'block'].map((k) => this.key(k, provider, ipKey));
    const [reason, wait] = (await this.redis.eval(ACQUIRE, 4, ...keys, limits.maxSessions, limits.sessionsPerMin, this.leaseMs, leaseId)) as [string, number];
    if (reason === 'ok') return { ok: true, leaseId };
    return { ok: false, reason: reason as 'blocked' | 'paused' | 'concurrency' | 'rate', waitMs: Math.max(0, Number(wait)) };
  }

  async release(provider: string, ipKey: string, leaseId: string): Promise<void> {
    await this.redis.zrem(this.key('sem', provider, ipKey), leaseId);
  }

  /** Pauses (provider, IP) after a throttling reply; the pause grows with each throttle in a row (@dv/verdict throttlePauseMs). */
  async pause(provider: string, ipKey: string, policy: ThrottlePause): Promise<number> {
    const streakKey = this.key('streak', provider, ipKey);
    const streak = (await this.redis.incr(streakKey)) - 1;
    const ms = throttlePauseMs(streak, policy);
    // The streak outlives the pause so the next throttle soon after doubles it; a clean session resets it.
    await this.redis.pexpire(streakKey, ms + policy.maxMs);
    await this.redis.set(this.key('pause', provider, ipKey), '1', 'PX', ms);
    return ms;
  }

  /** Sets a pause of known length (a pause this replica held while Redis was down, written again). */
  async setPause(provider: string, ipKey: string, ms: number): Promise<void> {
    await this.redis.set(this.key('pause', provider, ipKey), '1', 'PX', Math.max(1, Math.round(ms)));
  }

  async clearStreak(provider: string, ipKey: string): Promise<void> {
    await this.redis.del(this.key('streak', provider, ipKey));
  }

  async block(provider: string, ipKey: string, ms: number): Promise<void> {
    await this.redis.set(this.key('block', provider, ipKey), '1', 'PX', ms);
  }

  async isBlocked(provider: string, ipKey: string): Promise<boolean> {
    return (await this.redis.exists(this.key('block', provider, ipKey))) === 1;
  }

  /** RCPT limit learned from 452 4.5.3 replies, per provider. */
  async learnedRcpts(provider: string): Promise<number | null> {
    const v = await this.redis.get(`${this.prefix}rcpts:${provider}`);
    return v ? Number(v) : null;
  }

  async learnRcpts(provider: string, n: number): Promise<void> {
    await this.redis.set(`${this.prefix}rcpts:${provider}`, String(n), 'EX', 86_400);
  }

  /** Error budget per connection learned from harvest defences' cuts (harvest-cut.ts), per provider. */
  async learnedErrorBudget(provider: string): Promise<number | null> {
    const v = await this.redis.get(`${this.prefix}errors:${provider}`);
    return v ? Number(v) : null;
  }

  /** Keeps the lowest budget seen: a cut on a connection that drew fewer errors is the tighter truth. */
  async learnErrorBudget(provider: string, n: number): Promise<number> {
    const kept = (await this.redis.eval(LEARN_MIN, 1, `${this.prefix}errors:${provider}`, n, 86_400)) as number;
    return Number(kept);
  }

  async isCatchAll(domain: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}catchall:${domain}`)) === 1;
  }

  async rememberCatchAll(domain: string, ms: number): Promise<void> {
    if (ms > 0) await this.redis.set(`${this.prefix}catchall:${domain}`, '1', 'PX', ms);
  }
}
