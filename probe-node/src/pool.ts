// Connections kept open for a few seconds after a session, so the next session to the same MX
// host from the same source address reuses it (RSET, then a new MAIL transaction) instead of
// opening another TCP connection, greeting and EHLO: what MTAs do with their connection caches
// (Postfix `smtp_connection_cache_time_limit`). A scheduler sends a domain's addresses as they
// arrive, so the same host is often asked again moments later; each reuse saves the host a
// connection and us three round trips.
//
// Politeness: at most one idle connection per (source address, MX host), and a session takes the
// idle one before it would dial. So the connections a host sees from one source address never
// exceed the sessions the scheduler allowed at once: a new connection is only opened when none is
// idle, and a finished session's connection either stays (as the one idle) or closes. A session
// about to dial a host also closes the idle connections to the other hosts of its MX list and of
// its provider: the scheduler's limits hold per (provider, source address), and one provider may
// run many MX hosts (every Microsoft 365 tenant has its own), so an idle connection to one tenant's
// host beside a new one to another's would be one more than the provider allowed.
import { providerForMx } from '@dv/verdict';
import type { Extensions } from './dialogue.ts';
import { quit } from './dialogue.ts';
import type { SmtpConnection, TlsInfo } from './smtp/connection.ts';

export interface PooledConnection {
  conn: SmtpConnection;
  host: string;
  ip: string;
  ext: Extensions;
  tls: TlsInfo | null;
  /** Whether STARTTLS was asked for when it was opened (a reconnect must ask the same). */
  useStartTls: boolean;
  /** Transactions run on it so far. */
  transactions: number;
  /** Error replies it drew so far: harvest defences count them per connection, across RSET. */
  errors: number;
}

export interface PoolOptions {
  /** How long an idle connection is kept; 0 turns reuse off. */
  idleMs: number;
  /** Idle connections kept at most (the oldest is closed beyond it): bounds sockets and memory. */
  maxIdle: number;
  /** Transactions per connection at most, so one connection does not live for ever. */
  maxTransactions: number;
  quitTimeoutMs: number;
}

interface Idle {
  entry: PooledConnection;
  timer: NodeJS.Timeout;
  /** Its (source address, provider) bucket (bucketKey; the provider table's id for the host is computed once, when the connection goes idle). */
  bucket: string;
}

/**
 * Whether a connection that drew `errors` error replies may carry a session that could draw
 * `worstCase` more (its RCPTs and the catch-all probe, all rejected) without reaching the host's
 * error budget: harvest defences count per connection and RSET does not reset the count, so the
 * previous batches' errors would otherwise eat into the budget the scheduler sized this batch for.
 */
export function hasErrorRoom(errors: number, worstCase: number, budget: number): boolean {
  return errors === 0 || errors + worstCase < budget;
}

/**
 * Whether a kept connection that drew `errors` error replies should carry a session of `rcpts`
 * addresses (plus the catch-all probe when `probe`): an error-free one always; else when the probe
 * and half the addresses would fit under the budget even if all were rejected. The session sends
 * its RCPTs there in groups sized to the room left (dialogue.ts `errorRoom`), so the host never
 * reaches its budget, and what no longer fits goes to a fresh connection. Half: a list's addresses
 * are mostly valid, so such a session usually ends on this connection; a batch far larger than the
 * room (20 addresses, room for 2) goes straight to a fresh connection instead of a few RCPTs here first.
 */
export function worthReusing(errors: number, rcpts: number, probe: boolean, budget: number): boolean {
  return hasErrorRoom(errors, (probe ? 1 : 0) + Math.ceil(rcpts / 2), budget);
}

/** Error replies a connection that drew `errors` may still draw, all rejected, before the host's budget (unbounded when it drew none). */
export function errorRoom(errors: number, budget: number): number {
  return errors === 0 ? Number.POSITIVE_INFINITY : Math.max(0, budget - 1 - errors);
}

/** Whether `a` leaves more room under an error budget than `b` (fewer errors drawn). */
export function moreRoom(a: Pick<PooledConnection, 'errors'>, b: Pick<PooledConnection, 'errors'>): boolean {
  return a.errors < b.errors;
}

export function poolKey(sourceIp: string | undefined | null, host: string): string {
  return `${sourceIp ?? '*'}|${host.toLowerCase()}`;
}

/** The idle connections from `sourceIp` to the hosts of one provider: a dial closes its hosts' providers' buckets. */
function bucketKey(sourceIp: string | undefined | null, provider: string): string {
  return `${sourceIp ?? '*'}|${provider}`;
}

export class ConnectionPool {
  private readonly o: PoolOptions;
  /** Insertion order = age order, for eviction. */
  private readonly idle = new Map<string, Idle>();
  /**
   * The same connections by (source address, provider), each bucket in age order: a dial closes
   * its own providers' buckets without a scan of every idle connection (a node keeps up to maxIdle,
   * across all its source addresses and providers). Kept in step with `idle` by add and remove only.
   */
  private readonly buckets = new Map<string, Map<string, Idle>>();

  constructor(opts: PoolOptions) {
    this.o = opts;
  }

  get size(): number {
    return this.idle.size;
  }

  /** The idle connection to `host` from `sourceIp`, if a usable one is kept (it leaves the pool). */
  take(sourceIp: string | undefined | null, host: string): PooledConnection | null {
    const key = poolKey(sourceIp, host);
    const found = this.remove(key);
    if (!found) return null;
    clearTimeout(found.timer);
    if (!found.entry.conn.reusable) {
      found.entry.conn.destroy();
      return null;
    }
    return found.entry;
  }

  /**
   * Closes the idle connections from `sourceIp` to these hosts and to every other host of their
   * providers (one provider, one budget), before dialling one of them;
   * resolves once they are closed, so the host never sees the new one beside them.
   */
  async evict(sourceIp: string | undefined | null, hosts: readonly string[]): Promise<void> {
    const closing: Promise<void>[] = [];
    const providers = new Set(hosts.map((host) => providerForMx(host).id));
    for (const provider of providers) {
      const bk = bucketKey(sourceIp, provider);
      const bucket = this.buckets.get(bk);
      if (!bucket) continue;
      this.buckets.delete(bk);
      for (const [key, found] of bucket) {
        this.idle.delete(key);
        closing.push(this.close(found));
      }
    }
    await Promise.all(closing);
  }

  /**
   * Keeps a connection whose transaction ended cleanly (RSET answered), or else QUITs it. Resolves
   * once it is kept or closed: the session replies after that, so when the scheduler gives the
   * politeness slot back the host has seen the close, as without reuse.
   */
  async put(sourceIp: string | undefined | null, entry: PooledConnection): Promise<void> {
    const key = poolKey(sourceIp, entry.host);
    const other = this.idle.get(key);
    if (this.o.idleMs <= 0 || entry.transactions >= this.o.maxTransactions || !entry.conn.reusable || (other && !moreRoom(entry, other.entry))) {
      if (entry.conn.reusable) await quit(entry.conn, this.o.quitTimeoutMs);
      entry.conn.destroy();
      return;
    }
    // One idle connection per (source, host): this one has drawn fewer errors than the idle one, so
    // more sessions can run on it before the error budget refuses it. It takes the other's place at
    // once (no session can slip a third one in between) and the other is closed before this session
    // replies: its politeness slot covers the closing connection, as when this one was QUIT.
    if (other) this.remove(key);
    // Idle, it belongs to no session: no session deadline may cut it (the idle timer does).
    entry.conn.adopt(undefined);
    const bucket = bucketKey(sourceIp, providerForMx(entry.host).id);
    const timer = setTimeout(() => {
      if (this.idle.get(key)?.entry === entry) this.remove(key);
      void this.close({ entry, timer, bucket });
    }, this.o.idleMs);
    timer.unref();
    this.add(key, { entry, timer, bucket });
    while (this.idle.size > this.o.maxIdle) {
      const oldestKey: string = this.idle.keys().next().value!;
      void this.close(this.remove(oldestKey)!);
    }
    if (other) await this.close(other);
  }

  /** QUITs every idle connection (shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.idle.values()];
    this.idle.clear();
    this.buckets.clear();
    await Promise.all(all.map((i) => this.close(i)));
  }

  private add(key: string, i: Idle): void {
    this.idle.set(key, i);
    const bucket = this.buckets.get(i.bucket) ?? new Map<string, Idle>();
    this.buckets.set(i.bucket, bucket);
    bucket.set(key, i);
  }

  /** Takes the idle connection under `key` out of both indexes (not closed). */
  private remove(key: string): Idle | undefined {
    const i = this.idle.get(key);
    if (!i) return undefined;
    this.idle.delete(key);
    const bucket = this.buckets.get(i.bucket);
    bucket?.delete(key);
    if (bucket?.size === 0) this.buckets.delete(i.bucket);
    return i;
  }

  private async close(i: Idle): Promise<void> {
    clearTimeout(i.timer);
    if (i.entry.conn.reusable) await quit(i.entry.conn, this.o.quitTimeoutMs);
    i.entry.conn.destroy();
  }
}
