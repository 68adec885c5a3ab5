// Dispatch of one batch: wait for a politeness gate on some (probe node, source IP), run the probe
// session over NATS request/reply, then decide each address (decide.ts): store, park on the
// ladder, pause the provider, block the IP and move, or send again. A node that times out, has no
// responders or goes silent makes the batch go elsewhere; nothing is counted as an attempt then.
import { randomUUID } from 'node:crypto';
import { SUBJECTS, probeSessionReply, type ProbeSessionReply, type ProbeSessionRequest } from '@dv/contracts';
import { classifyReply, verdict } from '@dv/verdict';
import { REQUEST_ID_HEADER, requestIdHeaders } from '@dv/runtime';
import { msUntilReady, type Batcher, type DomainQueue } from './batcher.ts';
import { retryPolicy } from './config.ts';
import { errorBudgetFrom, probesCatchAll } from './cut.ts';
import { decideAddress, provesCatchAll } from './decide.ts';
import { free, rankCandidates, type Candidate } from './fleet.ts';
import { releaseHeld } from './held.ts';
import type { LiveDeps, LiveItem } from './live-types.ts';
import { providerLabel } from './metrics.ts';
import { downForEveryIp, downForIp, mxDownMarks, type MxHealth } from './mx-health.ts';
import { parkItems, type Park } from './park.ts';
import { poisonResult } from './poison.ts';
import { LocalFacts } from './local-facts.ts';
import { limitsFor, type GateResult, type Politeness } from './politeness.ts';

export interface DispatcherDeps extends LiveDeps {
  politeness: Politeness;
  mxHealth: MxHealth;
  batcher: Batcher<LiveItem>;
  requeue: (item: LiveItem, preferIp: string | null) => void;
  /** A session proved the domain catch-all (this replica's memo learns it at once). */
  onCatchAll: (domain: string) => void;
  /** The provider's learned error budget per connection (cut.ts), null when none. */
  errorBudget: (provider: string) => Promise<number | null>;
  /** A harvest defence's cut taught this budget; `heldMs` > 0 when Redis could not take it and this replica must keep it that long. */
  onErrorBudget: (provider: string, n: number, heldMs: number) => void;
  /** A 452 4.5.3 taught this RCPT limit; `heldMs` > 0 when Redis could not take it and this replica must keep it that long. */
  onLearnedRcpts: (provider: string, n: number, heldMs: number) => void;
}

interface SessionBatch {
  domain: string;
  preferIp: string | null;
  values: LiveItem[];
}

/** How often a batch held back by the concurrency gate looks again (other replicas free slots too). */
const CONCURRENCY_POLL_MS = 100;
const NO_NODE_POLL_MS = 500;
/** MX hosts whose last session's source IP is remembered (least recently used forgotten first; ~100 bytes each). */
const LAST_IP_MAX_HOSTS = 10_000;
const BUSY_SUSPECT_MS = 1_000;
/** A gate that Redis could not answer is asked again after this (the batch stays held meanwhile). */
const REDIS_ERROR_POLL_MS = 1_000;
/** How long a learned RCPT limit or error budget lives (as in Redis, politeness.ts). */
const LEARNED_RCPTS_MS = 86_400_000;

export class Dispatcher {
  sessionsInFlight = 0;
  private readonly d: DispatcherDeps;
  private readonly tasks = new Set<Promise<void>>();
  /** Batches asleep at a gate, by provider: a slot given back wakes only that provider's waiters. */
  private readonly wakers = new Map<string, Set<() => void>>();
  private readonly goneWatch = new Map<string, Set<(err: Error) => void>>();
  private stopping = false;
  /** (provider, IP) pairs this replica paused: their throttle streak is cleared after a clean session. */
  private readonly throttled = new Set<string>();
  /**
   * The source IP key each MX host's last session came from: the next session to the host goes
   * there when it can, where the probe node may keep that session's connection open (a domain's
   * sessions spread over two nodes took two connections where one would do).
   */
  private readonly lastIp = new Map<string, string>();
  /** Pauses, blocks and learned limits Redis could not take (local-facts.ts). */
  readonly facts = new LocalFacts({ retryMs: REDIS_ERROR_POLL_MS });

  constructor(deps: DispatcherDeps) {
    this.d = deps;
    deps.fleet.onGone((id) => {
      for (const reject of this.goneWatch.get(id) ?? []) reject(new Error('probe node gone'));
    });
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
    while (q.values.length > 0) {
      if (this.stopping) {
        for (const v of q.values.splice(0)) releaseHeld(v.h);
        return;
      }
      const { provider, dns } = q.values[0]!;
      const early = msUntilReady(q, Date.now(), this.d.config.BATCH_WINDOW_MS);
      if (early > 0) {
        await this.sleep(early, `batch:${q.key}`);
        continue;
      }
      const limits = { ...limitsFor(provider, this.d.config), rcptsPerSession: q.limit };
      let cands = rankCandidates(this.d.fleet.alive(), provider.id, Date.now(), q.preferIp, this.lastIp.get(dns.mx[0]!) ?? null).filter((c) => this.d.fleet.ipUsable(c.ipKey));
      if (cands.length > 0) {
        // Only IPs that have not found every MX host of the domain down (mx-health.ts).
        const health = await this.d.mxHealth.view(dns.mx);
        const reachable = cands.filter((c) => downForIp(health, dns.mx, c.ipKey) === 0);
        if (reachable.length === 0) {
          const downMs = downForEveryIp(health, dns.mx, this.d.fleet.usableIpKeys());
          if (downMs > 0) {
            // Every usable IP found the hosts down: the answer is unknown, as on intake (live.ts).
            const now = new Date();
            for (const v of q.values.splice(0)) {
              if (v.h.settled) continue;
              const probe = { rcpt: null, catchAll: null, session: 'connect_failed', attempts: v.h.item.attempts } as const;
              this.d.finisher.finish(v.h, verdict({ email: v.h.item.email, syntax: v.h.syntax!, lists: v.h.lists, dns: v.dns, probe, now, ref: v.h.item.ref, retryAfterSeconds: Math.ceil(downMs / 1000) }), v.h.item.attempts);
            }
            return;
          }
          // An IP that may reach the hosts is busy or suspect right now: wait for it like at a gate.
          waitedFor.add('mx_down_here');
          await this.sleep(CONCURRENCY_POLL_MS, provider.id);
          continue;
        }
        cands = reachable;
      }
      if (q.preferIp && cands[0]?.sourceIp === q.preferIp) cands = [cands[0]];
      if (cands.length === 0) {
        waitedFor.add('no_probe_node');
        await this.sleep(NO_NODE_POLL_MS, provider.id);
        continue;
      }
      let got: { c: Candidate; leaseId: string } | null = null;
      let best: Extract<GateResult, { ok: false }> | null = null;
      for (const c of cands) {
        // A pause or block this replica holds because Redis could not take it closes the gate
        // here first; a gate Redis cannot answer is a short wait, the items stay held.
        const local = this.facts.gate(provider.id, c.ipKey);
        const r: GateResult = local
          ? { ok: false, ...local }
          : await this.d.politeness.acquire(provider.id, c.ipKey, limits).catch((): GateResult => ({ ok: false, reason: 'unavailable', waitMs: REDIS_ERROR_POLL_MS }));
        if (r.ok) {
          got = { c, leaseId: r.leaseId };
          break;
        }
        if (!best || r.waitMs < best.waitMs) best = r;
      }
      if (got && free(got.c.node) <= 0) {
        // Other queues took the node's last free sessions while this one waited for Redis.
        void this.d.politeness.release(provider.id, got.c.ipKey, got.leaseId).catch(() => undefined);
        await this.sleep(CONCURRENCY_POLL_MS, provider.id);
        continue;
      }
      if (got) {
        const values = this.d.batcher.take(q, Date.now()).filter((v) => !v.h.settled);
        if (values.length === 0) {
          void this.d.politeness.release(provider.id, got.c.ipKey, got.leaseId).catch(() => undefined);
          continue;
        }
        const session = this.session(q, values, got.c, got.leaseId).catch((err: unknown) => {
          this.d.log.error({ err, domain: q.domain }, 'session handling failed; items released');
          for (const v of values) releaseHeld(v.h, 1_000);
        });
        this.tasks.add(session);
        void session.finally(() => this.tasks.delete(session));
        continue;
      }
      if (!best) continue;
      // The preferred IP (greylist retry) is blocked: any other IP is better than none.
      if (q.preferIp && best.reason === 'blocked') {
        for (const v of q.values.splice(0)) this.d.requeue(v, null);
        return;
      }
      if (!waitedFor.has(best.reason)) this.d.metrics.politenessWaits.inc({ reason: best.reason });
      waitedFor.add(best.reason);
      if (best.reason !== 'concurrency' && best.waitMs > this.d.config.PARK_THRESHOLD_MS) {
        // A long pause or window: wait durably instead of holding messages for minutes.
        const dueAt = new Date(Date.now() + best.waitMs);
        const parked = q.values.splice(0);
        await parkItems(this.d.db, parked.map((v) => ({ h: v.h, info: { dueAt, attempts: v.h.item.attempts, firstAttemptAt: v.h.item.first_attempt_at ?? null, sourceIp: v.h.item.source_ip, probeNode: v.h.item.probe_node ?? null } })));
        return;
      }
      await this.sleep(best.reason === 'concurrency' ? CONCURRENCY_POLL_MS : Math.max(10, best.waitMs), provider.id);
    }
  }

  private async session(q: DomainQueue<LiveItem>, values: LiveItem[], c: Candidate, leaseId: string): Promise<void> {
    // Counted on the node before the first await: the caller saw a free session there, and other
    // queues must not take the same one meanwhile (the node would answer `busy`).
    this.sessionsInFlight++;
    c.node.assigned++;
    this.rememberIp(values[0]!.dns.mx[0]!, c.ipKey);
    const batch = { domain: q.domain, preferIp: q.preferIp, values };
    const { provider, dns } = values[0]!;
    const cfg = this.d.config;
    const addresses = [...new Set(values.map((v) => v.h.syntax!.address))];
    const req: ProbeSessionRequest = {
      session_id: randomUUID(),
      domain: batch.domain,
      mx_hosts: [...dns.mx],
      addresses,
      catch_all_probe: probesCatchAll(batch.domain, provider),
      mail_from: cfg.PROBE_MAIL_FROM,
      source_ip: c.sourceIp,
      timeouts: { sessionMs: cfg.PROBE_SESSION_TIMEOUT_MS },
      // Never throws (the counts above are given back in the finally below only).
      error_budget: await this.d.errorBudget(provider.id).catch(() => null),
    };
    const startedAt = new Date();
    for (const v of batch.values) this.d.metrics.dispatchLatency.observe({ priority: v.h.priority }, (startedAt.getTime() - v.h.receivedAtMs) / 1000);
    let reply: ProbeSessionReply | null = null;
    let failure = '';
    try {
      reply = await this.request(c.node.id, req, cfg.PROBE_SESSION_TIMEOUT_MS + cfg.PROBE_REQUEST_MARGIN_MS, values.map((v) => v.h.requestId));
    } catch (err) {
      failure = (err as Error).message;
    } finally {
      c.node.assigned--;
      this.sessionsInFlight--;
      setTimeout(() => {
        void this.d.politeness
          .release(provider.id, c.ipKey, leaseId)
          .catch(() => undefined)
          .finally(() => this.wake(provider.id));
      }, cfg.SLOT_RELEASE_DELAY_MS).unref();
    }
    if (!reply || reply.outcome === 'busy') {
      const reason = !reply ? (/gone/.test(failure) ? 'node_gone' : /503|no responders/i.test(failure) ? 'no_responders' : 'timeout') : 'busy';
      this.d.fleet.markSuspect(c.node.id, reason === 'busy' ? BUSY_SUSPECT_MS : this.d.fleet.goneMs);
      this.d.metrics.redispatches.inc({ reason });
      this.d.log.warn({ node: c.node.id, reason, domain: batch.domain, items: batch.values.length, request_id: requestIdsOf(values) }, 'probe session lost; sending the batch elsewhere');
      const now = new Date();
      for (const v of batch.values) {
        v.h.redispatches++;
        if (reason !== 'busy' && this.lost(v, now)) continue;
        this.d.requeue(v, batch.preferIp);
      }
      return;
    }
    this.d.metrics.sessions.inc({ outcome: reply.outcome });
    this.d.log.debug({ request_id: requestIdsOf(values), domain: batch.domain, items: values.length, node: c.node.id, outcome: reply.outcome, waitedMs: startedAt.getTime() - Math.min(...values.map((v) => v.h.receivedAtMs)), sessionMs: Date.now() - startedAt.getTime() }, 'probe session');
    await this.afterSession(batch, c, reply, startedAt);
  }

  private async afterSession(batch: SessionBatch, c: Candidate, reply: ProbeSessionReply, startedAt: Date): Promise<void> {
    const { provider, dns } = batch.values[0]!;
    const cfg = this.d.config;
    const pol = this.d.politeness;
    // MX health is per (host, source IP); a node's own trouble marks nothing and steers work away from it.
    const marks = mxDownMarks(reply, dns.mx, cfg.MX_DOWN_MS, cfg.MX_DOWN_TIMEOUT_MS);
    for (const m of marks) {
      if (!(await this.d.mxHealth.mark(m.host, c.ipKey, m.ms))) this.d.log.warn({ host: m.host, ip: c.ipKey }, 'MX down mark not stored in Redis; held by this replica only');
    }
    const reachableElsewhere = marks.length > 0 && downForEveryIp(await this.d.mxHealth.view(dns.mx), dns.mx, this.d.fleet.usableIpKeys()) === 0;
    if (reply.node_fault) {
      if (reply.node_fault === 'egress') this.d.fleet.markEgressFault(c.ipKey, cfg.PROBE_EGRESS_FAULT_MS);
      else this.d.fleet.markSuspect(c.node.id, this.d.fleet.goneMs);
      this.d.metrics.redispatches.inc({ reason: `node_${reply.node_fault}` });
      this.d.log.warn({ node: c.node.id, ip: c.ipKey, fault: reply.node_fault, domain: batch.domain }, 'probe node ended the session itself; its unanswered addresses go elsewhere');
    }
    const budget = errorBudgetFrom(reply);
    if (budget !== null) {
      // Before the addresses it left go back to their batch, so they are sized by it.
      let heldMs = 0;
      const kept = await pol.learnErrorBudget(provider.id, budget).catch((err: unknown) => {
        heldMs = LEARNED_RCPTS_MS;
        this.holdLocally('errors', provider.id, '', heldMs, null, () => pol.learnErrorBudget(provider.id, budget), err);
        return budget;
      });
      this.d.onErrorBudget(provider.id, kept, heldMs);
      this.d.metrics.redispatches.inc({ reason: 'error_limit' });
      this.d.log.info({ provider: provider.id, mx: reply.mx_used, errors: budget, budget: kept }, 'harvest defence cut the session: error budget learned; unanswered addresses sent again');
    }
    if (provesCatchAll(reply) && !provider.quirks.acceptsAllAtRcpt) {
      this.d.onCatchAll(batch.domain);
      await pol.rememberCatchAll(batch.domain, cfg.CATCH_ALL_MEMORY_MS).catch(() => undefined);
    }
    // Only a policy block needs to know whether another IP could take the work (Redis round trips).
    const blockedHere = reply.results.some((r) => r.reply && classifyReply(r.reply).class === 'policy_blocked');
    const otherIpAvailable = blockedHere ? await this.otherIpAvailable(provider.id, c.ipKey) : false;
    const ladders = retryPolicy(cfg);
    const sourceIp = reply.source_ip ?? c.sourceIp;
    let paused = false;
    let blocked = false;
    const now = new Date();
    // The session's greylisted addresses are parked together, in one write, after the loop.
    const parks: Park[] = [];
    for (const v of batch.values) {
      const { h } = v;
      if (h.settled) continue;
      const first = h.item.first_attempt_at ?? startedAt;
      const attempt = h.item.attempts + 1;
      const dec = decideAddress({ address: h.syntax!.address, reply, attempt, elapsedMs: now.getTime() - first.getTime(), ladders, throttleStreak: 0, otherIpAvailable,
        cutRedispatches: h.cutRedispatches ?? 0, maxCutRedispatches: cfg.MAX_CUT_REDISPATCHES, reachableElsewhere,
      });
      if (dec.kind === 'elsewhere') {
        // Not judged and not an attempt; a node's fault counts as a lost session (bounded, poison.ts).
        h.redispatches++;
        if (dec.why === 'node_fault' && this.lost(v, now)) continue;
        if (dec.why === 'unreachable_here') this.d.metrics.redispatches.inc({ reason: 'mx_down_here' });
        // A greylist retry keeps its source IP through a node's restart; not through its broken egress.
        this.d.requeue(v, reply.node_fault === 'shutdown' ? batch.preferIp : null);
        continue;
      }
      if (dec.kind === 'redispatch') {
        // Unanswered by a cut session: not an attempt (nothing was learned about the address).
        h.redispatches++;
        h.cutRedispatches = (h.cutRedispatches ?? 0) + 1;
        this.d.requeue(v, batch.preferIp);
        continue;
      }
      h.item.attempts = attempt;
      h.item.first_attempt_at = first;
      const label = providerLabel(provider);
      switch (dec.kind) {
        case 'final':
          this.d.finisher.finish(h, verdict({ email: h.item.email, syntax: h.syntax!, lists: h.lists, dns, probe: dec.probe, now, ref: h.item.ref }), attempt);
          break;
        case 'retry':
          this.d.metrics.greylistRetries.inc({ provider: label });
          parks.push({ h, info: { dueAt: new Date(now.getTime() + dec.delayMs), attempts: attempt, firstAttemptAt: first, sourceIp, probeNode: c.node.id } });
          break;
        case 'pause':
          if (!paused) {
            paused = true;
            this.throttled.add(`${provider.id}|${c.ipKey}`);
            const ms = await this.recordPause(provider.id, c.ipKey);
            this.d.metrics.providerPauses.inc({ provider: label });
            this.d.log.info({ provider: provider.id, ip: c.ipKey, pauseMs: ms }, 'throttled: provider paused for this IP');
          }
          this.d.requeue(v, null);
          break;
        case 'move_ip':
          if (!blocked) {
            blocked = true;
            await pol.block(provider.id, c.ipKey, dec.blockMs).catch((err: unknown) => {
              this.holdLocally('block', provider.id, c.ipKey, dec.blockMs, 'blocked', (left) => pol.block(provider.id, c.ipKey, left), err);
            });
            this.d.metrics.ipBlocks.inc({ provider: label });
            this.d.log.warn({ provider: provider.id, ip: c.ipKey }, 'policy block: IP marked blocked for this provider; moving the work');
          }
          this.d.requeue(v, null);
          break;
        case 'fewer_rcpts':
          await pol.learnRcpts(provider.id, dec.maxRcpts).then(
            () => this.d.onLearnedRcpts(provider.id, dec.maxRcpts, 0),
            (err: unknown) => {
              this.d.onLearnedRcpts(provider.id, dec.maxRcpts, LEARNED_RCPTS_MS);
              this.holdLocally('rcpts', provider.id, '', LEARNED_RCPTS_MS, null, () => pol.learnRcpts(provider.id, dec.maxRcpts), err);
            },
          );
          this.d.requeue(v, batch.preferIp);
          break;
      }
    }
    await parkItems(this.d.db, parks);
    // A clean session ends a throttle streak; only pairs this replica saw throttled can have one.
    const pair = `${provider.id}|${c.ipKey}`;
    if (!paused && reply.outcome === 'completed' && this.throttled.delete(pair)) void pol.clearStreak(provider.id, c.ipKey).catch(() => undefined);
  }

  /**
   * Counts a lost session for the item; past PROBE_REDISPATCH_MAX it ends it (poison.ts): a batch
   * that loses every node it goes to may be what breaks them. True when it was ended.
   */
  private lost(v: LiveItem, now: Date): boolean {
    const h = v.h;
    h.lostSessions = (h.lostSessions ?? 0) + 1;
    if (h.lostSessions <= this.d.config.PROBE_REDISPATCH_MAX) return false;
    this.d.finisher.finish(h, poisonResult(h, 'lost_sessions', h.lostSessions, now), h.item.attempts);
    this.d.metrics.poisonItems.inc({ reason: 'lost_sessions' });
    this.d.log.error({ item: h.item._id, job_id: h.item.job_id, lost: h.lostSessions }, 'poison item ended as unknown');
    return true;
  }

  /** Whether another (node, IP) not blocked by this provider exists, so a policy block can move the work. */
  private async otherIpAvailable(providerId: string, ipKey: string): Promise<boolean> {
    const others = rankCandidates(this.d.fleet.alive().map((n) => ({ ...n, suspectUntilMs: 0, assigned: 0, reportedInFlight: 0 })), providerId, Date.now()).filter((c) => c.ipKey !== ipKey);
    for (const o of others) {
      if (this.facts.gate(providerId, o.ipKey)?.reason === 'blocked') continue;
      // Redis cannot say: the IP may be fine, so the work moves rather than ending provider_blocked.
      if (!(await this.d.politeness.isBlocked(providerId, o.ipKey).catch(() => false))) return true;
    }
    return false;
  }

  /** Pauses (provider, IP) after a throttle, in Redis or, when Redis errs, here (first pause length: the streak is in Redis). */
  private async recordPause(provider: string, ipKey: string): Promise<number> {
    const { throttlePause } = retryPolicy(this.d.config);
    const pol = this.d.politeness;
    try {
      return await pol.pause(provider, ipKey, throttlePause);
    } catch (err) {
      this.holdLocally('pause', provider, ipKey, throttlePause.initialMs, 'paused', (left) => pol.setPause(provider, ipKey, left), err);
      return throttlePause.initialMs;
    }
  }

  private holdLocally(kind: string, provider: string, ipKey: string, ms: number, gate: 'paused' | 'blocked' | null, write: (msLeft: number) => Promise<unknown>, err: unknown): void {
    this.facts.hold(kind, provider, ipKey, ms, gate, write);
    this.d.log.warn({ err: (err as Error).message, kind, provider, ip: ipKey, ms }, 'Redis could not take a decision: held by this replica and written again until it does');
  }

  /** `requestIds`: the HTTP requests whose items this session probes, sent along so the probe node's log lines name them. */
  private async request(nodeId: string, req: ProbeSessionRequest, timeoutMs: number, requestIds: ReadonlyArray<string | undefined> = []): Promise<ProbeSessionReply> {
    let onGone: ((err: Error) => void) | undefined;
    const gone = new Promise<never>((_, reject) => {
      onGone = reject;
      const set = this.goneWatch.get(nodeId) ?? new Set();
      set.add(reject);
      this.goneWatch.set(nodeId, set);
    });
    try {
      const headers = requestIdHeaders(requestIds);
      const startedMs = Date.now();
      const msg = await Promise.race([this.d.nc.request(SUBJECTS.probeSession(nodeId), JSON.stringify(req), { timeout: timeoutMs, ...(headers ? { headers } : {}) }), gone]);
      const reply = probeSessionReply.parse(msg.json());
      this.d.fleet.recordPace(nodeId, Date.now() - startedMs, req.addresses.length + (req.catch_all_probe ? 1 : 0));
      return reply;
    } finally {
      const set = this.goneWatch.get(nodeId);
      if (onGone) set?.delete(onGone);
      if (set?.size === 0) this.goneWatch.delete(nodeId);
      gone.catch(() => undefined);
    }
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

/** The distinct request ids of a session's items, for its log lines (undefined when none came with one). */
function requestIdsOf(values: ReadonlyArray<{ h: { requestId?: string } }>): string | undefined {
  return requestIdHeaders(values.map((v) => v.h.requestId))?.get(REQUEST_ID_HEADER);
}
