// Hands out the right to send one DNS query: a grant takes, at the same instant, one token from the
// query's operator budget, one from the worker's global budget and one from a configured resolver's
// budget. Taking them at once (rather than one after another) is what keeps each budget exact: a
// query never holds an operator token while it waits for the global one.
//
// Fair: each operator's queries wait in arrival order (FIFO), and only the head of each operator's
// queue competes for the global and resolver budgets, in the order the heads became eligible, so
// one operator's flood cannot starve another. Bounded: a query that cannot be granted within
// maxWaitMs is refused (the caller reports it as a TIMEOUT, i.e. unconfirmed), at once when its
// place in the operator's queue already says so, else when its deadline passes.
import { Budget } from './budget.ts';

export interface SchedulerOptions {
  workerQps: number;
  /** One budget per configured resolver, in DNS_SERVERS order. */
  resolverQps: readonly number[];
  maxWaitMs: number;
  windowMarginMs: number;
  nowMs?: () => number;
}

/**
 * A grant holds a place in each of its budgets until `settle(grant)`: the budgets date a query by
 * when it ended (budget.ts), so the caller settles every grant once its query is answered or timed out.
 */
export type Grant = { ok: true; resolver: number; operator: Budget | null } | { ok: false; budget: 'operator' | 'worker'; waitedMs: number };

interface Waiter {
  op: OperatorQueue | null;
  enqueuedAt: number;
  deadline: number;
  avoid: ReadonlySet<number> | undefined;
  done: (grant: Grant) => void;
}

interface OperatorQueue {
  key: string;
  /** Configured rate, before the division among replicas. */
  baseQps: number;
  budget: Budget;
  queue: Waiter[];
  /** Index of the head in `queue` (shifting arrays is O(n)). */
  head: number;
  /** The head sits in the ready list. */
  inReady: boolean;
  timer: NodeJS.Timeout | undefined;
}

const SWEEP_EVERY = 1000;
/**
 * Places of each operator window kept for debits (see #operatorQueue). One was not enough: a
 * worker starting first scans of several new zones of one small host within a second sends their
 * NS questions before any names the host (the 100,000-domain first pass saw 52 against 50, four
 * debits in one second across two replicas). Two places per replica cost a small host's scans 4%.
 */
const OPERATOR_DEBIT_RESERVE = 2;

export class BudgetScheduler {
  readonly #options: SchedulerOptions;
  readonly #now: () => number;
  readonly #global: Budget;
  readonly #resolvers: { base: number; budget: Budget }[];
  readonly #operators = new Map<string, OperatorQueue>();
  /** Waiters whose operator allows them now, waiting for the worker and resolver budgets. */
  #ready: Waiter[] = [];
  #readyHead = 0;
  #pumpTimer: NodeJS.Timeout | undefined;
  #pumpAt = Infinity;
  #share = 1;
  #acquires = 0;
  #closed = false;

  constructor(options: SchedulerOptions) {
    if (options.resolverQps.length === 0) throw new Error('no resolver budgets');
    this.#options = options;
    this.#now = options.nowMs ?? (() => performance.now());
    this.#global = new Budget(options.workerQps, options.windowMarginMs);
    this.#resolvers = options.resolverQps.map((q) => ({ base: q, budget: new Budget(q, options.windowMarginMs) }));
  }

  /**
   * Divides the shared budgets (operators and resolvers; not the worker's own) by `replicas`: each
   * of that many workers then takes its part, so together they keep each operator's budget.
   */
  setShare(replicas: number): void {
    this.#share = Math.max(1, Math.floor(replicas));
    for (const r of this.#resolvers) r.budget.setQps(r.base / this.#share);
    for (const op of this.#operators.values()) op.budget.setQps(op.baseQps / this.#share);
  }

  /**
   * Grants nothing for `ms`. A replica joining others takes its share at once, but they keep
   * theirs until their next heartbeat shows it: meanwhile each operator would get more than its budget.
   */
  holdFor(ms: number): void {
    this.#global.holdUntil(this.#now() + ms);
    this.#pump();
  }

  get share(): number {
    return this.#share;
  }

  /** Waiters in all queues (a gauge for tests and metrics). */
  get waiting(): number {
    let n = this.#ready.length - this.#readyHead;
    for (const op of this.#operators.values()) n += op.queue.length - op.head - (op.inReady ? 1 : 0);
    return n;
  }

  /**
   * Which budget holds a query that tryAcquire() just refused: its operator's (its window full, or
   * a queue ahead of it that the window holds), else the worker's, else a resolver's. A queue whose
   * head the operator already let through (waiting for the worker's or a resolver's budget) is
   * held by those: counting it as the operator's blamed busy operators for a worker at its own cap.
   */
  heldBy(operator: { key: string } | null): 'operator' | 'worker' | 'resolver' {
    const now = this.#now();
    const op = operator === null ? undefined : this.#operators.get(operator.key);
    if (op && (op.timer || !op.budget.canGrant(now) || (op.head < op.queue.length && !op.inReady))) return 'operator';
    return this.#global.canGrant(now) ? 'resolver' : 'worker';
  }

  /**
   * The grant acquire() would give at once, without a promise or a queue entry: when nobody waits
   * ahead (in the operator's queue or for the worker and resolver budgets) and every budget allows
   * it now. null: the query must wait its turn (acquire). Most queries of a worker below its budgets
   * take this path; each grant is the same as acquire()'s.
   */
  tryAcquire(operator: { key: string; qps: number } | null, avoid?: ReadonlySet<number>): Grant | null {
    if (this.#closed || this.#readyHead < this.#ready.length) return null;
    const now = this.#now();
    if (++this.#acquires % SWEEP_EVERY === 0) this.#sweep(now);
    const op = operator === null ? null : this.#operatorQueue(operator.key, operator.qps);
    if (op && (op.head < op.queue.length || op.inReady || op.timer || !op.budget.canGrant(now))) return null;
    if (!this.#global.canGrant(now)) return null;
    const r = this.#pickResolver(avoid, now);
    if (typeof r !== 'number') return null;
    this.#take(r, op);
    return { ok: true, resolver: r, operator: op?.budget ?? null };
  }

  /**
   * Waits for the budgets of one query. `operator` null: charged to the worker and a resolver only
   * (a zone's own NS lookup, made before its operator is known). `avoid`: resolvers already tried.
   */
  acquire(operator: { key: string; qps: number } | null, avoid?: ReadonlySet<number>): Promise<Grant> {
    if (this.#closed) return Promise.resolve({ ok: false, budget: 'worker', waitedMs: 0 });
    const now = this.#now();
    if (++this.#acquires % SWEEP_EVERY === 0) this.#sweep(now);
    return new Promise<Grant>((done) => {
      const waiter: Waiter = { op: null, enqueuedAt: now, deadline: now + this.#options.maxWaitMs, avoid, done };
      if (operator === null) {
        this.#ready.push(waiter);
        this.#pump();
        return;
      }
      const op = this.#operatorQueue(operator.key, operator.qps);
      // Its grant cannot come before the operator has granted everyone ahead of it.
      const ahead = op.queue.length - op.head;
      const earliest = op.budget.readyAtAfter(ahead, now);
      if (earliest > waiter.deadline) {
        done({ ok: false, budget: 'operator', waitedMs: 0 });
        return;
      }
      waiter.op = op;
      op.queue.push(waiter);
      if (ahead === 0) {
        this.#promote(op, now);
        this.#pump();
      }
    });
  }

  /**
   * Charges one query already sent to an operator (a zone's first NS question, sent before its
   * operator was known): it counts against the operator's window like any grant.
   */
  debit(operator: { key: string; qps: number }): void {
    if (this.#closed) return;
    this.#operatorQueue(operator.key, operator.qps).budget.record(this.#now());
  }

  /**
   * The query of a grant ended (answered or timed out): from now on it counts in its budgets'
   * windows at this time instead of as in flight. No new place opens at once (it still counts), so
   * nothing is pumped; a budget all in flight had armed its timer for the soonest they could end.
   */
  settle(grant: Grant): void {
    if (!grant.ok) return;
    const now = this.#now();
    this.#global.settle(now);
    this.#resolvers[grant.resolver]?.budget.settle(now);
    grant.operator?.settle(now);
  }

  /** Takes a place in each budget of one grant. */
  #take(resolver: number, op: OperatorQueue | null): void {
    this.#global.take();
    (this.#resolvers[resolver] as { budget: Budget }).budget.take();
    op?.budget.take();
  }

  /** Refuses every waiter and stops the timers. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#pumpTimer);
    for (const op of this.#operators.values()) {
      clearTimeout(op.timer);
      for (let i = op.head; i < op.queue.length; i++) if (!op.inReady || i > op.head) op.queue[i]?.done({ ok: false, budget: 'worker', waitedMs: 0 });
    }
    for (let i = this.#readyHead; i < this.#ready.length; i++) this.#ready[i]?.done({ ok: false, budget: 'worker', waitedMs: 0 });
    this.#operators.clear();
    this.#ready = [];
    this.#readyHead = 0;
  }

  #operatorQueue(key: string, qps: number): OperatorQueue {
    let op = this.#operators.get(key);
    if (!op) {
      // Places of each window are kept for queries debited after they were sent (debit): without
      // them a first scan's NS question could make a full window one over the operator's budget.
      op = { key, baseQps: qps, budget: new Budget(qps / this.#share, this.#options.windowMarginMs, OPERATOR_DEBIT_RESERVE), queue: [], head: 0, inReady: false, timer: undefined };
      this.#operators.set(key, op);
    } else if (op.baseQps !== qps) {
      op.baseQps = qps;
      op.budget.setQps(qps / this.#share);
    }
    return op;
  }

  /** Moves the operator's head to the ready list when its budget allows, else arms its timer. */
  #promote(op: OperatorQueue, now: number): void {
    if (op.inReady || op.timer) return;
    while (op.head < op.queue.length && (op.queue[op.head] as Waiter).deadline < now) {
      const late = op.queue[op.head++] as Waiter;
      late.done({ ok: false, budget: 'operator', waitedMs: now - late.enqueuedAt });
    }
    if (op.head >= op.queue.length) {
      op.queue = [];
      op.head = 0;
      return;
    }
    const at = op.budget.readyAt(now);
    if (now >= at) {
      op.inReady = true;
      this.#ready.push(op.queue[op.head] as Waiter);
      return;
    }
    op.timer = setTimeout(() => {
      op.timer = undefined;
      if (this.#closed) return;
      this.#promote(op, this.#now());
      this.#pump();
    }, Math.max(1, Math.ceil(at - now)));
  }

  #pump(): void {
    if (this.#closed) return;
    const now = this.#now();
    while (this.#readyHead < this.#ready.length) {
      const w = this.#ready[this.#readyHead] as Waiter;
      if (w.deadline < now) {
        this.#readyHead++;
        this.#release(w, now);
        w.done({ ok: false, budget: 'worker', waitedMs: now - w.enqueuedAt });
        continue;
      }
      if (w.op && !w.op.budget.canGrant(now)) {
        // A debit moved its operator's budget after it became eligible: back to its queue's head.
        this.#readyHead++;
        w.op.inReady = false;
        this.#promote(w.op, now);
        continue;
      }
      if (!this.#global.canGrant(now)) {
        this.#schedulePump(this.#global.readyAt(now), now);
        break;
      }
      const r = this.#pickResolver(w.avoid, now);
      if (typeof r !== 'number') {
        this.#schedulePump(r.at, now);
        break;
      }
      this.#readyHead++;
      this.#take(r, w.op);
      this.#release(w, now);
      w.done({ ok: true, resolver: r, operator: w.op?.budget ?? null });
    }
    if (this.#readyHead > 1024 && this.#readyHead * 2 > this.#ready.length) {
      this.#ready = this.#ready.slice(this.#readyHead);
      this.#readyHead = 0;
    }
  }

  /** The head left the ready list (granted or late): its operator's next waiter may move up. */
  #release(w: Waiter, now: number): void {
    const op = w.op;
    if (!op) return;
    op.head++;
    op.inReady = false;
    if (op.head > 1024 && op.head * 2 > op.queue.length) {
      op.queue = op.queue.slice(op.head);
      op.head = 0;
    }
    this.#promote(op, now);
  }

  /** The allowed resolver that can grant now and has been idle longest; else when the first can. */
  #pickResolver(avoid: ReadonlySet<number> | undefined, now: number): number | { at: number } {
    const all = avoid !== undefined && avoid.size >= this.#resolvers.length;
    let best = -1;
    let bestAt = Infinity;
    this.#resolvers.forEach((r, i) => {
      if (!all && avoid?.has(i)) return;
      const at = r.budget.readyAt(now);
      if (at < bestAt) {
        best = i;
        bestAt = at;
      }
    });
    return now >= bestAt ? best : { at: bestAt };
  }

  #schedulePump(at: number, now: number): void {
    if (this.#pumpTimer && this.#pumpAt <= at) return;
    clearTimeout(this.#pumpTimer);
    this.#pumpAt = at;
    this.#pumpTimer = setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pumpAt = Infinity;
      this.#pump();
    }, Math.max(1, Math.ceil(at - now)));
  }

  /** Forgets operators with nobody waiting whose budget is idle (a fresh one behaves the same). */
  #sweep(now: number): void {
    for (const [key, op] of this.#operators) {
      if (op.head >= op.queue.length && !op.timer && !op.inReady && op.budget.idle(now)) this.#operators.delete(key);
    }
  }
}
