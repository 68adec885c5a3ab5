// Dispatch of one batch: wait for a politeness gate on some (probe node, source IP), run the probe
// session over NATS request/reply, then decide each address (decide.ts): store, park on the
// ladder, pause the provider, block the IP and move, or send again. A node that times out, has no
// responders or goes silent makes the batch go elsewhere; nothing is counted as an attempt then.
//
// This file chooses where a batch goes and when (candidates, MX health, politeness gates, parking
// a long wait); sending the session is dispatch-send.ts and settling its reply dispatch-settle.ts.
import { verdict } from '@dv/verdict';
import { msUntilReady, type DomainQueue } from '../live/batcher.ts';
import { SessionSender } from './dispatch-send.ts';
import { SessionSettler } from './dispatch-settle.ts';
import type { DispatcherDeps } from './dispatch-types.ts';
import { free, holdForFaster, rankCandidates, type Candidate } from '../fleet/fleet.ts';
import { releaseHeld } from '../intake/held-item.ts';
import type { LiveItem } from '../live/live-types.ts';
import { downForEveryIp, downForIp } from '../politeness/mx-health.ts';
import { parkItems } from '../store/park.ts';
import { LocalFacts } from '../politeness/local-facts.ts';
import { limitsFor, type GateResult } from '../politeness/politeness.ts';

export type { DispatcherDeps } from './dispatch-types.ts';

/** How often a batch held back by the concurrency gate looks again (other replicas free slots too). */
const CONCURRENCY_POLL_MS = 100;
const NO_NODE_POLL_MS = 500;
/** MX hosts whose last session's source IP is remembered (least recently used forgotten first; ~100 bytes each). */
const LAST_IP_MAX_HOSTS = 10_000;
/** A gate that Redis could not answer is asked again after this (the batch stays held meanwhile). */
const REDIS_ERROR_POLL_MS = 1_000;

export class Dispatcher {
  private readonly d: DispatcherDeps;
  private readonly tasks = new Set<Promise<void>>();
  /** Batches asleep at a gate, by provider: a slot given back wakes only that provider's waiters. */
  private readonly wakers = new Map<string, Set<() => void>>();
  private stopping = false;
  /**
   * The source IP key each MX host's last session came from: the next session to the host goes
   * there when it can, where the probe node may keep that session's connection open (a domain's
   * sessions spread over two nodes took two connections where one would do).
   */
  private readonly lastIp = new Map<string, string>();
  /** Pauses, blocks and learned limits Redis could not take (local-facts.ts). */
  readonly facts = new LocalFacts({ retryMs: REDIS_ERROR_POLL_MS });
  private readonly settler: SessionSettler;
  private readonly sender: SessionSender;

  constructor(deps: DispatcherDeps) {
    this.d = deps;
    this.settler = new SessionSettler(deps, this.facts);
    this.sender = new SessionSender(deps, this.settler, (provider) => this.wake(provider));
  }

  /** Sessions this replica has in flight on probe nodes (load figures). */
  get sessionsInFlight(): number {
    return this.sender.sessionsInFlight;
  }

  /** Works one domain queue until it is empty: gate, take a session's worth, send, repeat. */
  pump(q: DomainQueue<LiveItem>): void {
    if (q.pumping) return;
    q.pumping = true;
    const task = this.pumpQueue(q)
      .catch((err: unknown) => {
        this.d.log.error({ err, domain: q.domain }, 'dispatch failed; items released');
        for (const v of q.values.splice(0)) releaseHeld(v.h, 1_000);
      })
      .finally(() => {
        q.pumping = false;
        this.tasks.delete(task);
        // Items that arrived after the last take but before this line: keep going.
        if (q.values.length > 0 && !this.stopping) this.pump(q);
        else this.d.batcher.forget(q);
      });
    this.tasks.add(task);
  }

  private async pumpQueue(q: DomainQueue<LiveItem>): Promise<void> {
    const waitedFor = new Set<string>();
    /** When the batch now at the head first stood at the gates (a slow node waits for it: holdForFaster). */
    let readySince: number | null = null;
    while (q.values.length > 0) {
      if (this.stopping) {
        for (const v of q.values.splice(0)) releaseHeld(v.h);
        return;
      }
      const { provider } = q.values[0]!;
      const early = msUntilReady(q, Date.now(), this.d.config.BATCH_WINDOW_MS);
      if (early > 0) {
        await this.sleep(early, `batch:${q.key}`);
        continue;
      }
      readySince ??= Date.now();
      const limits = { ...limitsFor(provider, this.d.config), rcptsPerSession: q.limit };
      const cands = await this.candidatesFor(q, waitedFor);
      if (cands === 'ended') return;
      if (cands === 'waited') continue;
      if (cands.length === 0) {
        waitedFor.add('no_probe_node');
        await this.sleep(NO_NODE_POLL_MS, provider.id);
        continue;
      }
      const { got, best, holdMs } = await this.passGates(q, provider, limits, cands, readySince);
      if (got && free(got.c.node) <= 0) {
        // Other queues took the node's last free sessions while this one waited for Redis.
        void this.d.politeness.release(provider.id, got.c.ipKey, got.leaseId).catch(() => undefined);
        await this.sleep(CONCURRENCY_POLL_MS, provider.id);
        continue;
      }
      if (got) {
        readySince = null;
        this.launch(q, provider, got);
        continue;
      }
      if (!best) continue;
      if ((await this.waitAtGate(q, provider, best, holdMs, waitedFor)) === 'ended') return;
    }
  }

  /**
   * The (node, IP) candidates for the queue's head batch, best first: only IPs that have not found
   * every MX host of the domain down (mx-health.ts). 'ended' when every usable IP found them down
   * (the items are finished), 'waited' after waiting for an IP that may reach them.
   */
  private async candidatesFor(q: DomainQueue<LiveItem>, waitedFor: Set<string>): Promise<Candidate[] | 'ended' | 'waited'> {
    const { provider, dns } = q.values[0]!;
    let cands = rankCandidates(this.d.fleet.alive(), provider.id, Date.now(), q.preferIp, this.lastIp.get(dns.mx[0]!) ?? null).filter((c) => this.d.fleet.ipUsable(c.ipKey));
    if (cands.length > 0) {
      const health = await this.d.mxHealth.view(dns.mx);
      const reachable = cands.filter((c) => downForIp(health, dns.mx, c.ipKey) === 0);
      if (reachable.length === 0) {
        const downMs = downForEveryIp(health, dns.mx, this.d.fleet.usableIpKeys());
        if (downMs > 0) {
          this.finishUnreachable(q, downMs);
          return 'ended';
        }
        // An IP that may reach the hosts is busy or suspect right now: wait for it like at a gate.
        waitedFor.add('mx_down_here');
        await this.sleep(CONCURRENCY_POLL_MS, provider.id);
        return 'waited';
      }
      cands = reachable;
    }
    if (q.preferIp && cands[0]?.sourceIp === q.preferIp) cands = [cands[0]];
    return cands;
  }

  /** Every usable IP found the hosts down: the answer is unknown, as on intake (live.ts). */
  private finishUnreachable(q: DomainQueue<LiveItem>, downMs: number): void {
    const now = new Date();
    for (const v of q.values.splice(0)) {
      if (v.h.settled) continue;
      const probe = { rcpt: null, catchAll: null, session: 'connect_failed', attempts: v.h.item.attempts } as const;
      this.d.finisher.finish(v.h, verdict({ email: v.h.item.email, syntax: v.h.syntax!, lists: v.h.lists, dns: v.dns, probe, now, ref: v.h.item.ref, retryAfterSeconds: Math.ceil(downMs / 1000) }), v.h.item.attempts);
    }
  }

  /**
   * Tries the politeness gates of the candidates in order: the first open one (got), else the
   * closed gate that opens soonest (best) and how long a slow node is held back for a faster one.
   */
  private async passGates(q: DomainQueue<LiveItem>, provider: LiveItem['provider'], limits: ReturnType<typeof limitsFor>, cands: Candidate[], readySince: number): Promise<{ got: { c: Candidate; leaseId: string } | null; best: Extract<GateResult, { ok: false }> | null; holdMs: number }> {
    let best: Extract<GateResult, { ok: false }> | null = null;
    const addresses = Math.min(q.values.length, limits.rcptsPerSession);
    let fasterPaceMs: number | undefined;
    let holdMs = Infinity;
    for (const c of cands) {
      const hold = holdForFaster(c.node, fasterPaceMs, addresses, Date.now() - readySince);
      if (hold > 0) {
        holdMs = Math.min(holdMs, hold);
        continue;
      }
      // A pause or block this replica holds because Redis could not take it closes the gate
      // here first; a gate Redis cannot answer is a short wait, the items stay held.
      const local = this.facts.gate(provider.id, c.ipKey);
      const r: GateResult = local
        ? { ok: false, ...local }
        : await this.d.politeness.acquire(provider.id, c.ipKey, limits).catch((): GateResult => ({ ok: false, reason: 'unavailable', waitMs: REDIS_ERROR_POLL_MS }));
      if (r.ok) return { got: { c, leaseId: r.leaseId }, best, holdMs };
      const pace = c.node.paceMsPerAddress;
      if ((r.reason === 'concurrency' || r.reason === 'rate') && pace !== undefined) fasterPaceMs = Math.min(fasterPaceMs ?? pace, pace);
      if (!best || r.waitMs < best.waitMs) best = r;
    }
    return { got: null, best, holdMs };
  }

  /** Sends the batch now at the head of the queue through the gate it got (its lease back when nothing is left to send). */
  private launch(q: DomainQueue<LiveItem>, provider: LiveItem['provider'], got: { c: Candidate; leaseId: string }): void {
    const values = this.d.batcher.take(q, Date.now()).filter((v) => !v.h.settled);
    if (values.length === 0) {
      void this.d.politeness.release(provider.id, got.c.ipKey, got.leaseId).catch(() => undefined);
      return;
    }
    // As the session goes out: the host's next batch prefers this IP (lastIp above).
    this.rememberIp(values[0]!.dns.mx[0]!, got.c.ipKey);
    const session = this.sender.send(q, values, got.c, got.leaseId).catch((err: unknown) => {
      this.d.log.error({ err, domain: q.domain }, 'session handling failed; items released');
      for (const v of values) releaseHeld(v.h, 1_000);
    });
    this.tasks.add(session);
    void session.finally(() => this.tasks.delete(session));
  }

  /** Every gate is closed: wait for the one that opens soonest, or park the queue durably when that is long. */
  private async waitAtGate(q: DomainQueue<LiveItem>, provider: LiveItem['provider'], best: Extract<GateResult, { ok: false }>, holdMs: number, waitedFor: Set<string>): Promise<'ended' | 'waited'> {
    // The preferred IP (greylist retry) is blocked: any other IP is better than none.
    if (q.preferIp && best.reason === 'blocked') {
      for (const v of q.values.splice(0)) this.d.requeue(v, null);
      return 'ended';
    }
    if (!waitedFor.has(best.reason)) this.d.metrics.politenessWaits.inc({ reason: best.reason });
    waitedFor.add(best.reason);
    if (best.reason !== 'concurrency' && best.waitMs > this.d.config.PARK_THRESHOLD_MS && holdMs === Infinity) {
      // A long pause or window: wait durably instead of holding messages for minutes.
      const dueAt = new Date(Date.now() + best.waitMs);
      const parked = q.values.splice(0);
      await parkItems(this.d.db, parked.map((v) => ({ h: v.h, info: { dueAt, attempts: v.h.item.attempts, firstAttemptAt: v.h.item.first_attempt_at ?? null, sourceIp: v.h.item.source_ip, probeNode: v.h.item.probe_node ?? null } })));
      return 'ended';
    }
    // A slow node held back for this batch is taken once the hold ends, whatever the faster gates say.
    await this.sleep(Math.min(holdMs, best.reason === 'concurrency' ? CONCURRENCY_POLL_MS : Math.max(10, best.waitMs)), provider.id);
    return 'waited';
  }

  private sleep(ms: number, provider: string): Promise<void> {
    return new Promise((resolve) => {
      const set = this.wakers.get(provider) ?? new Set();
      this.wakers.set(provider, set);
      const done = () => {
        clearTimeout(t);
        set.delete(done);
        if (set.size === 0 && this.wakers.get(provider) === set) this.wakers.delete(provider);
        resolve();
      };
      const t = setTimeout(done, ms);
      set.add(done);
    });
  }

  private rememberIp(host: string, ipKey: string): void {
    this.lastIp.delete(host);
    this.lastIp.set(host, ipKey);
    if (this.lastIp.size > LAST_IP_MAX_HOSTS) this.lastIp.delete(this.lastIp.keys().next().value!);
  }

  /** A slot was given back here: that provider's batches waiting at a gate look again at once. */
  private wake(provider?: string): void {
    const sets = provider ? [this.wakers.get(provider)] : [...this.wakers.values()];
    for (const set of sets) for (const w of [...(set ?? [])]) w();
  }

  async stop(budgetMs: number): Promise<void> {
    this.stopping = true;
    this.facts.stop();
    this.wake();
    await Promise.race([Promise.allSettled([...this.tasks]), new Promise((r) => setTimeout(r, budgetMs))]);
  }
}
