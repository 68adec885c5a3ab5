// Per-domain queues: the items of one domain (and one required source IP, for greylist retries)
// wait together; a session takes up to the provider's RCPT limit from the queue when a politeness
// slot opens. So while a domain waits at its gate, its items pile up into full sessions instead of
// many small ones. The first item waits at most BATCH_WINDOW_MS for company. Pure apart from the
// clock the caller passes.

export interface BatchEntry<T> {
  /** Recipient domain. */
  domain: string;
  /** Source IP the item must come from (greylisting keys on the client /24), or null. */
  preferIp: string | null;
  /** RCPTs per session for this domain's provider. */
  limit: number;
  single: boolean;
  value: T;
}

export interface DomainQueue<T> {
  key: string;
  domain: string;
  preferIp: string | null;
  limit: number;
  /** When the oldest waiting item arrived. */
  firstAtMs: number;
  /** Holds a single check: its sessions go before list work at the gate. */
  single: boolean;
  values: T[];
  /** A dispatcher task is working this queue. */
  pumping: boolean;
}

export function batchKey(domain: string, preferIp: string | null): string {
  return `${domain}|${preferIp ?? ''}`;
}

/** A session may leave when it can be full, or when the oldest item has waited the whole window. */
export function batchReady(q: Pick<DomainQueue<unknown>, 'values' | 'limit' | 'firstAtMs'>, nowMs: number, windowMs: number): boolean {
  return q.values.length >= q.limit || nowMs - q.firstAtMs >= windowMs;
}

/** Milliseconds until batchReady turns true (0 = now). */
export function msUntilReady(q: Pick<DomainQueue<unknown>, 'values' | 'limit' | 'firstAtMs'>, nowMs: number, windowMs: number): number {
  return batchReady(q, nowMs, windowMs) ? 0 : q.firstAtMs + windowMs - nowMs;
}

export class Batcher<T> {
  readonly queues = new Map<string, DomainQueue<T>>();

  /** Adds one entry to its queue and returns the queue (start a pump when it has none). */
  add(entry: BatchEntry<T>, nowMs: number): DomainQueue<T> {
    const key = batchKey(entry.domain, entry.preferIp);
    let q = this.queues.get(key);
    if (!q) {
      q = { key, domain: entry.domain, preferIp: entry.preferIp, limit: entry.limit, firstAtMs: nowMs, single: false, values: [], pumping: false };
      this.queues.set(key, q);
    }
    if (q.values.length === 0) q.firstAtMs = nowMs;
    q.limit = Math.min(q.limit, entry.limit);
    q.values.push(entry.value);
    q.single ||= entry.single;
    return q;
  }

  /** Takes the next session's worth of items; a drained queue with no pump is forgotten. */
  take(q: DomainQueue<T>, nowMs: number): T[] {
    const out = q.values.splice(0, q.limit);
    // Whatever is left has already waited: it may leave as soon as a slot opens.
    q.firstAtMs = q.values.length > 0 ? Number.NEGATIVE_INFINITY : nowMs;
    q.single = false;
    return out;
  }

  forget(q: DomainQueue<T>): void {
    if (q.values.length === 0 && !q.pumping && this.queues.get(q.key) === q) this.queues.delete(q.key);
  }

  get size(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.values.length;
    return n;
  }
}
