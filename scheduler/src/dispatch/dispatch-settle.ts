// Settling a probe session's reply: each address is decided (decide.ts) and then stored, parked
// on the retry ladder, sent again, or made to wait behind a provider pause or an IP block. Apart
// from choosing a node (dispatch.ts) and sending (dispatch-send.ts) because it is where every
// learned fact (MX down, error budget, RCPT limit, catch-all, pause, block) is written, and
// where Redis failing to take one is held by this replica instead (local-facts.ts).
import type { ItemEvidence, ProbeSessionReply } from '@dv/contracts';
import { classifyReply, verdict, type ProbeOutcome } from '@dv/verdict';
import { retryPolicy } from '../config.ts';
import { errorBudgetFrom } from './harvest-cut.ts';
import { decideAddress, provesCatchAll } from './decide.ts';
import type { DispatcherDeps, SessionBatch } from './dispatch-types.ts';
import { rankCandidates, type Candidate } from '../fleet/fleet.ts';
import type { LiveItem } from '../live/live-types.ts';
import type { LocalFacts } from '../politeness/local-facts.ts';
import { providerLabel } from '../metrics.ts';
import { downForEveryIp, mxDownMarks } from '../politeness/mx-health.ts';
import { parkItems, type Park } from '../store/park.ts';
import { poisonResult } from '../intake/poison-result.ts';

/** How long a learned RCPT limit or error budget lives (as in Redis, politeness.ts). */
const LEARNED_RCPTS_MS = 86_400_000;

/** A decision that judged the address (the others send it again unjudged). */
type Judged = Exclude<ReturnType<typeof decideAddress>, { kind: 'elsewhere' | 'redispatch' }>;

/** One session's settling: its facts, and what its addresses did so far (one pause, one block, one park write). */
/** What a person reads on the check page: the MX host, the reply that decided, the catch-all probe. */
export function evidenceOf(reply: ProbeSessionReply, address: string, probe: ProbeOutcome): ItemEvidence {
  const own = reply.results.find((r) => r.address === address)?.reply ?? null;
  const catchAll = probe.catchAll === null ? 'not_run' : probe.catchAll.class === 'accepted' ? 'accepted' : 'refused';
  return { mx_host: reply.mx_used, reply: own ?? reply.cut?.reply ?? null, catch_all_probe: catchAll };
}

interface SettleRun {
  batch: SessionBatch;
  c: Candidate;
  reply: ProbeSessionReply;
  startedAt: Date;
  otherIpAvailable: boolean;
  reachableElsewhere: boolean;
  ladders: ReturnType<typeof retryPolicy>;
  sourceIp: string | null;
  paused: boolean;
  blocked: boolean;
  now: Date;
  // The session's greylisted addresses are parked together, in one write, after the loop.
  parks: Park[];
}

export class SessionSettler {
  private readonly d: DispatcherDeps;
  /** Pauses, blocks and learned limits Redis could not take: the dispatcher's, whose gates read them. */
  private readonly facts: LocalFacts;
  /** (provider, IP) pairs this replica paused: their throttle streak is cleared after a clean session. */
  private readonly throttled = new Set<string>();

  constructor(deps: DispatcherDeps, facts: LocalFacts) {
    this.d = deps;
    this.facts = facts;
  }

  async settle(batch: SessionBatch, c: Candidate, reply: ProbeSessionReply, startedAt: Date): Promise<void> {
    const { provider } = batch.values[0]!;
    const reachableElsewhere = await this.learnHealth(batch, c, reply);
    await this.learnFromReply(batch, reply);
    // Only a policy block needs to know whether another IP could take the work (Redis round trips).
    const blockedHere = reply.results.some((r) => r.reply && classifyReply(r.reply).class === 'policy_blocked');
    const otherIpAvailable = blockedHere ? await this.otherIpAvailable(provider.id, c.ipKey) : false;
    const run: SettleRun = {
      batch, c, reply, startedAt, otherIpAvailable, reachableElsewhere,
      ladders: retryPolicy(this.d.config),
      sourceIp: reply.source_ip ?? c.sourceIp,
      paused: false,
      blocked: false,
      now: new Date(),
      parks: [],
    };
    for (const v of batch.values) await this.settleItem(run, v);
    await parkItems(this.d.db, run.parks);
    // A clean session ends a throttle streak; only pairs this replica saw throttled can have one.
    const pair = `${provider.id}|${c.ipKey}`;
    if (!run.paused && reply.outcome === 'completed' && this.throttled.delete(pair)) void this.d.politeness.clearStreak(provider.id, c.ipKey).catch(() => undefined);
  }

  /**
   * MX health is per (host, source IP); a node's own trouble marks nothing and steers work away
   * from it. True when the MX hosts marked down here are reachable from another IP.
   */
  private async learnHealth(batch: SessionBatch, c: Candidate, reply: ProbeSessionReply): Promise<boolean> {
    const { dns } = batch.values[0]!;
    const cfg = this.d.config;
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
    return reachableElsewhere;
  }

  /** What the reply teaches about the provider and domain: a harvest defence's error budget, a catch-all. */
  private async learnFromReply(batch: SessionBatch, reply: ProbeSessionReply): Promise<void> {
    const { provider } = batch.values[0]!;
    const pol = this.d.politeness;
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
      await pol.rememberCatchAll(batch.domain, this.d.config.CATCH_ALL_MEMORY_MS).catch(() => undefined);
    }
  }

  /** Decides one address of the session and acts on it (or sends it elsewhere, unjudged). */
  private async settleItem(run: SettleRun, v: LiveItem): Promise<void> {
    const { h } = v;
    if (h.settled) return;
    const { batch, reply, now } = run;
    const cfg = this.d.config;
    const first = h.item.first_attempt_at ?? run.startedAt;
    const attempt = h.item.attempts + 1;
    const dec = decideAddress({ address: h.syntax!.address, reply, attempt, elapsedMs: now.getTime() - first.getTime(), ladders: run.ladders, throttleStreak: 0, otherIpAvailable: run.otherIpAvailable,
      cutRedispatches: h.cutRedispatches ?? 0, maxCutRedispatches: cfg.MAX_CUT_REDISPATCHES, reachableElsewhere: run.reachableElsewhere,
    });
    if (dec.kind === 'elsewhere') {
      // Not judged and not an attempt; a node's fault counts as a lost session (bounded, poison-result.ts).
      h.redispatches++;
      if (dec.why === 'node_fault' && this.lost(v, now)) return;
      if (dec.why === 'unreachable_here') this.d.metrics.redispatches.inc({ reason: 'mx_down_here' });
      // A greylist retry keeps its source IP through a node's restart; not through its broken egress.
      this.d.requeue(v, reply.node_fault === 'shutdown' ? batch.preferIp : null);
      return;
    }
    if (dec.kind === 'redispatch') {
      // Unanswered by a cut session: not an attempt (nothing was learned about the address).
      h.redispatches++;
      h.cutRedispatches = (h.cutRedispatches ?? 0) + 1;
      this.d.requeue(v, batch.preferIp);
      return;
    }
    h.item.attempts = attempt;
    h.item.first_attempt_at = first;
    await this.act(run, v, dec, attempt, first);
  }

  /** Carries out a judged address's decision: store, park, pause the provider, move IP, or resend with fewer RCPTs. */
  private async act(run: SettleRun, v: LiveItem, dec: Judged, attempt: number, first: Date): Promise<void> {
    const { h } = v;
    const { batch, c, now } = run;
    const { provider, dns } = batch.values[0]!;
    const pol = this.d.politeness;
    const label = providerLabel(provider);
    switch (dec.kind) {
      case 'final':
        this.d.finisher.finish(h, verdict({ email: h.item.email, syntax: h.syntax!, lists: h.lists, dns, probe: dec.probe, now, ref: h.item.ref }), attempt, evidenceOf(run.reply, h.syntax!.address, dec.probe));
        break;
      case 'retry':
        this.d.metrics.greylistRetries.inc({ provider: label });
        run.parks.push({ h, info: { dueAt: new Date(now.getTime() + dec.delayMs), attempts: attempt, firstAttemptAt: first, sourceIp: run.sourceIp, probeNode: c.node.id } });
        break;
      case 'pause':
        if (!run.paused) {
          run.paused = true;
          this.throttled.add(`${provider.id}|${c.ipKey}`);
          const ms = await this.recordPause(provider.id, c.ipKey);
          this.d.metrics.providerPauses.inc({ provider: label });
          this.d.log.info({ provider: provider.id, ip: c.ipKey, pauseMs: ms }, 'throttled: provider paused for this IP');
        }
        this.d.requeue(v, null);
        break;
      case 'move_ip':
        if (!run.blocked) {
          run.blocked = true;
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

  /**
   * Counts a lost session for the item; past PROBE_REDISPATCH_MAX it ends it (poison-result.ts): a batch
   * that loses every node it goes to may be what breaks them. True when it was ended.
   */
  lost(v: LiveItem, now: Date): boolean {
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
}
