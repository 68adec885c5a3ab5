import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError, problemBody } from '@dv/runtime';

// Idempotency-Key on writes (spec "Errors", Idempotency). A record per (account, key mode, key)
// lives in Redis: `pending` while the first request runs, then the response it gave (status,
// headers, body) for 24 h. A replay gets that response back without running anything, so it
// never charges; a concurrent duplicate waits for the first and answers the same; the same key
// with a different request is 422 idempotency_key_reused. Responses that invite a retry (429,
// 5xx) are not kept, so the retry really runs: a duplicate still waiting when the first one
// ends that way takes the record and runs the request itself. Every answer that is not the
// request's own is one the spec tells clients to retry (503 with Retry-After), never a 409.

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Pending {
  s: 'pending';
  fp: string;
}

interface Done {
  s: 'done';
  fp: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface IdempotencyOptions {
  redis: Redis;
  prefix: string;
  ttlSeconds: number;
  pendingTtlSeconds: number;
  pollMs: number;
}

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A stable fingerprint of a request: method, route, and the canonical JSON of what it asked for. */
export function fingerprint(method: string, route: string, payload: unknown): string {
  return createHash('sha256').update(`${method} ${route}\n`).update(canonicalJson(payload)).digest('hex');
}

function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
}

/** Whose records: keys are per account, and live and sandbox keys of one account never share them. */
export interface IdempotencyScope {
  account: { _id: string };
  mode: 'live' | 'sandbox';
}

export class Idempotency {
  private readonly opts: IdempotencyOptions;

  constructor(opts: IdempotencyOptions) {
    this.opts = opts;
  }

  private key(scope: IdempotencyScope, idemKey: string): string {
    // Live records keep the form they had before modes were kept apart, so a live retry across
    // that deploy still finds its record (and is not charged twice); sandbox ones get their own.
    const mode = scope.mode === 'live' ? '' : 'sandbox:';
    return `${this.opts.prefix}idem:${scope.account._id}:${mode}${createHash('sha256').update(idemKey).digest('base64url')}`;
  }

  /**
   * Runs `work` once per (account, key mode, Idempotency-Key). Without a key it simply runs.
   * `signal` ends a duplicate's wait when the client goes away or the process drains.
   */
  async run(scope: IdempotencyScope, idemKey: string | undefined, fp: string, work: () => Promise<Reply>, signal?: AbortSignal): Promise<Reply> {
    if (idemKey === undefined) return work();
    const key = this.key(scope, idemKey);
    const deadline = Date.now() + this.opts.pendingTtlSeconds * 1000;
    const pending = JSON.stringify({ s: 'pending', fp } satisfies Pending);
    for (;;) {
      const took = await this.opts.redis.set(key, pending, 'EX', this.opts.pendingTtlSeconds, 'NX');
      if (took === 'OK') return this.execute(key, fp, work);
      const replay = await this.await(key, fp, deadline, signal);
      if (replay) return replay;
      // The record went away: the request holding it failed transiently (or its replica died),
      // and nothing was kept. This duplicate may now run the request itself, like a retry would.
    }
  }

  private async execute(key: string, fp: string, work: () => Promise<Reply>): Promise<Reply> {
    let reply: Reply;
    try {
      reply = await work();
    } catch (err) {
      // Errors the client should fix are remembered like any response; transient ones are not.
      if (err instanceof ApiError && err.status < 500 && err.status !== 429) {
        await this.store(key, fp, { status: err.status, body: problemBody(err), headers: { 'Content-Type': 'application/problem+json', ...err.headers } });
      } else {
        await this.opts.redis.del(key).catch(() => undefined);
      }
      throw err;
    }
    if (reply.status >= 500 || reply.status === 429) await this.opts.redis.del(key).catch(() => undefined);
    else await this.store(key, fp, reply);
    return reply;
  }

  private async store(key: string, fp: string, reply: Reply): Promise<void> {
    const done: Done = { s: 'done', fp, status: reply.status, headers: reply.headers ?? {}, body: reply.body };
    await this.opts.redis.set(key, JSON.stringify(done), 'EX', this.opts.ttlSeconds);
  }

  /** Waits for the request holding the record: its kept answer, or null once the record is gone. */
  private async await(key: string, fp: string, deadline: number, signal?: AbortSignal): Promise<Reply | null> {
    for (;;) {
      const raw = await this.opts.redis.get(key);
      if (raw === null) return null;
      const rec = JSON.parse(raw) as Pending | Done;
      if (rec.fp !== fp) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a fresh key for a new request.');
      }
      if (rec.s === 'done') return { status: rec.status, body: rec.body, headers: { ...rec.headers, 'Idempotent-Replayed': 'true' } };
      if (Date.now() > deadline || signal?.aborted) {
        // Spec (Errors): clients retry 429, 502, 503 and 504 honouring Retry-After, and nothing
        // else; the retry then gets the first request's answer or runs it.
        throw new ApiError('service_unavailable', 'A request with this Idempotency-Key is still in progress; retry after the Retry-After seconds to get its answer.', {}, { 'Retry-After': '2' });
      }
      await new Promise((r) => setTimeout(r, this.opts.pollMs));
    }
  }
}
