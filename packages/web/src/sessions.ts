import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

// Server-side sessions in Redis. The browser holds only a random id; Redis holds the session under
// the id's SHA-256, so a copy of Redis signs no one in. A session ends on idle (its key's TTL,
// pushed forward on use), at its absolute lifetime (checked on every read), on sign-out, and on
// "sign out everywhere", which ends every session of the person at once. Sign-in always makes a
// new id (rotation): an id seen before sign-in never becomes a signed-in one.

export interface SessionTimes {
  /** Idle lifetime: a session unused this long is gone. */
  idleMs: number;
  /** Absolute lifetime from sign-in, however busy. */
  absoluteMs: number;
}

export interface Session<T> {
  /** The cookie value; only the browser and this request see it. */
  readonly id: string;
  /** Who it belongs to: "sign out everywhere" ends every session of this subject. */
  readonly subject: string;
  readonly data: T;
  readonly createdAtMs: number;
}

interface Stored<T> {
  subject: string;
  data: T;
  createdAtMs: number;
}

/** Pushing the idle TTL forward costs a write: at most once per this share of the idle lifetime. */
const TOUCH_EVERY_IDLE_FRACTION = 0.1;

export class SessionStore<T> {
  private readonly touched = new Map<string, number>();
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly times: SessionTimes;
  private readonly now: () => number;
  constructor(redis: Redis, prefix: string, times: SessionTimes, now: () => number = Date.now) {
    this.redis = redis;
    this.prefix = prefix;
    this.times = times;
    this.now = now;
  }

  private key(id: string): string {
    return `${this.prefix}:session:${createHash('sha256').update(id).digest('hex')}`;
  }

  private subjectKey(subject: string): string {
    return `${this.prefix}:subject:${createHash('sha256').update(subject).digest('hex')}`;
  }

  /** A new session (sign-in); the caller ends the one it replaces. */
  async create(subject: string, data: T): Promise<Session<T>> {
    const id = randomBytes(32).toString('base64url');
    const createdAtMs = this.now();
    const stored: Stored<T> = { subject, data, createdAtMs };
    await this.redis
      .multi()
      .set(this.key(id), JSON.stringify(stored), 'PX', this.times.idleMs)
      .sadd(this.subjectKey(subject), this.key(id))
      .pexpire(this.subjectKey(subject), this.times.absoluteMs)
      .exec();
    return { id, subject, data, createdAtMs };
  }

  /** The live session for a cookie value, or null (unknown, idle too long, past its lifetime). */
  async get(id: string | undefined): Promise<Session<T> | null> {
    if (!id || id.length > 100) return null;
    const key = this.key(id);
    const raw = await this.redis.get(key);
    if (!raw) return null;
    const stored = JSON.parse(raw) as Stored<T>;
    const now = this.now();
    if (now - stored.createdAtMs >= this.times.absoluteMs) {
      await this.end(id);
      return null;
    }
    const last = this.touched.get(key) ?? 0;
    if (now - last >= this.times.idleMs * TOUCH_EVERY_IDLE_FRACTION) {
      this.touched.set(key, now);
      if (this.touched.size > 10_000) this.touched.clear();
      await this.redis.pexpire(key, this.times.idleMs);
    }
    return { id, subject: stored.subject, data: stored.data, createdAtMs: stored.createdAtMs };
  }

  /** Replaces what the session holds (a switched account), keeping its id and lifetimes. */
  async update(session: Session<T>, data: T): Promise<Session<T>> {
    const stored: Stored<T> = { subject: session.subject, data, createdAtMs: session.createdAtMs };
    await this.redis.set(this.key(session.id), JSON.stringify(stored), 'PX', this.times.idleMs, 'XX');
    return { ...session, data };
  }

  /** Sign-out: this session only. */
  async end(id: string): Promise<void> {
    const key = this.key(id);
    const raw = await this.redis.getdel(key);
    this.touched.delete(key);
    if (raw) await this.redis.srem(this.subjectKey((JSON.parse(raw) as Stored<T>).subject), key);
  }

  /** "Sign out everywhere": every session of the subject ends before this returns. */
  async endAll(subject: string): Promise<number> {
    const setKey = this.subjectKey(subject);
    const keys = await this.redis.smembers(setKey);
    // Only the members read are removed: a session made meanwhile stays listed for the next call.
    if (keys.length > 0) await this.redis.multi().del(...keys).srem(setKey, ...keys).exec();
    for (const k of keys) this.touched.delete(k);
    return keys.length;
  }
}
