import type { RedisDependency } from '@dv/runtime';

// Revocation marks: what makes a revocation hold on every replica from the moment it answers.
// The APIs remember authenticated keys in process (authenticator.ts) and a MongoDB change stream
// drops them, but the stream reports late under load. So every path that takes a credential's
// power away (a key revoked, an account deactivated, a plan changed) also stamps the ids it
// touched here, after its MongoDB write and before it answers; a remembered key is only believed
// while no stamp on its key, account or token is as recent as the moment it was read.
// The stamp is Redis's own clock (TIME, in microseconds), and readers take their "read at" from
// the same clock, so no two hosts' clocks are ever compared.
// One namespace for every service (no REDIS_KEY_PREFIX): the accounts collection is shared, and an
// account deactivated by the admin CLI must reach the verification and portfolio APIs alike. Ids
// are unique across collections (acc_…, key_…, portfolio key ids `acc_…:n`, token ids).

type Redis = RedisDependency['redis'];
type MarksRedis = Redis & {
  dvAuthMark?: (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<string>;
  dvAuthMarksRead?: (numKeys: number, ...keys: string[]) => Promise<string[]>;
};

export const AUTH_MARK_KEY_PREFIX = 'dv:authmark:';
// Far longer than any remembered key lives (the services cap their cache at minutes).
const MARK_TTL_MS = 24 * 3600 * 1000;

// Stamps every key with Redis's clock; returns that time (microseconds, as a string).
const MARK = `
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
for i = 1, #KEYS do redis.call('SET', KEYS[i], now, 'PX', ARGV[1]) end
return now`;

// The clock first, then the stamps: one round trip answers both "now" and "what was revoked".
const READ = `
local t = redis.call('TIME')
local out = { string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2])) }
for i = 1, #KEYS do out[i + 1] = redis.call('GET', KEYS[i]) or '0' end
return out`;

export class AuthMarks {
  private readonly redis: MarksRedis;

  constructor(redis: Redis) {
    this.redis = redis as MarksRedis;
    if (!this.redis.dvAuthMark) this.redis.defineCommand('dvAuthMark', { lua: MARK });
    if (!this.redis.dvAuthMarksRead) this.redis.defineCommand('dvAuthMarksRead', { lua: READ });
  }

  /** Stamps `ids` (key, account or token ids) as changed now. Call after the MongoDB write, before answering. */
  async mark(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.redis.dvAuthMark!(ids.length, ...ids.map(markKey), MARK_TTL_MS);
  }

  /** Redis's clock now and the stamp of each id (0: never stamped), in microseconds. */
  async read(ids: readonly string[]): Promise<{ now: number; marks: number[] }> {
    const [now, ...marks] = await this.redis.dvAuthMarksRead!(ids.length, ...ids.map(markKey));
    return { now: Number(now), marks: marks.map(Number) };
  }

  /** Redis's clock: what a credential read from MongoDB from now on is "read at". */
  async now(): Promise<number> {
    return (await this.read([])).now;
  }
}

function markKey(id: string): string {
  return `${AUTH_MARK_KEY_PREFIX}${id}`;
}
