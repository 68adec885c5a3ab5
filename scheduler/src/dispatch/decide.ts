// Pure: what happens to one address after a probe session. Builds on @dv/verdict's classifyReply
// and nextAction; adds the session-level cases (no reply, busy node) the verdict package leaves to
// the caller.
import type { ProbeSessionReply } from '@dv/contracts';
import { classifyReply, nextAction, type ClassifiedReply, type ProbeOutcome, type RetryLadders, type RetryPolicy, type SessionOutcome } from '@dv/verdict';
import { isErrorLimitCut } from './harvest-cut.ts';

export type AddressDecision =
  /** Ends here: call verdict() with this probe outcome. */
  | { kind: 'final'; probe: ProbeOutcome }
  /** Greylisting (greylist ladder) or another temporary reply (short ladder): retry after delayMs, from the same source IP. */
  | { kind: 'retry'; delayMs: number; probe: ProbeOutcome }
  /** Throttled: pause (provider, IP) and retry when a gate opens. */
  | { kind: 'pause'; probe: ProbeOutcome }
  /** Our IP is blocked by the provider: mark it blocked for blockMs and retry at once from another IP. */
  | { kind: 'move_ip'; blockMs: number; probe: ProbeOutcome }
  /** Too many recipients: retry at once with at most maxRcpts per session. */
  | { kind: 'fewer_rcpts'; maxRcpts: number; probe: ProbeOutcome }
  /** Nothing was tried for this address (node busy or draining): send again, not an attempt. */
  | { kind: 'redispatch' }
  /**
   * Not judged, and another node or IP should try (not an attempt): `node_fault` = the node ended
   * the session itself (shutdown, its own egress); `unreachable_here` = the MX hosts could not be
   * reached from this source IP, but another usable IP has not found them down (mx-health.ts).
   */
  | { kind: 'elsewhere'; why: 'node_fault' | 'unreachable_here' };

export interface DecideInput {
  address: string;
  reply: ProbeSessionReply;
  /** Attempts including this session. */
  attempt: number;
  /** Milliseconds since the item's first attempt. */
  elapsedMs: number;
  /** Both ladders in (scaled) minutes after the first try, with the throttle pause and the IP block (config.ts retryPolicy; ladders alone take @dv/verdict's). */
  ladders: RetryLadders | RetryPolicy;
  throttleStreak: number;
  otherIpAvailable: boolean;
  /** Times this item was already sent again after a harvest defence's cut, and the most allowed (harvest-cut.ts). */
  cutRedispatches?: number;
  maxCutRedispatches?: number;
  /** The session could not reach the MX hosts, and another usable IP has not found them down (mx-health.ts downForEveryIp). */
  reachableElsewhere?: boolean;
}

const synthetic = (cls: ClassifiedReply['class'], rule: string): ClassifiedReply => ({ class: cls, rule });

function sessionOf(outcome: ProbeSessionReply['outcome']): SessionOutcome {
  switch (outcome) {
    case 'completed':
    case 'connect_failed':
    case 'timeout':
    case 'dropped':
    case 'tls_failed':
    case 'mx_refused':
      return outcome;
    default:
      return 'dropped';
  }
}

export function catchAllClass(reply: ProbeSessionReply): ClassifiedReply | null {
  const r = reply.catch_all?.reply;
  return r ? classifyReply(r) : null;
}

export function decideAddress(input: DecideInput): AddressDecision {
  const { reply } = input;
  if (reply.outcome === 'busy') return { kind: 'redispatch' };
  const entry = reply.results.find((r) => r.address === input.address);
  const catchAll = catchAllClass(reply);
  const session = sessionOf(reply.outcome);
  const probe = (rcpt: ClassifiedReply | null): ProbeOutcome => ({ rcpt, catchAll, session, attempts: input.attempt });
  // No reply for the address, and the session's end says nothing about it: let another node or IP ask.
  const unjudged = !entry || (entry.reply === null && entry.state === 'not_attempted');
  if (unjudged && reply.node_fault) return { kind: 'elsewhere', why: 'node_fault' };
  if (unjudged && input.reachableElsewhere) return { kind: 'elsewhere', why: 'unreachable_here' };
  if (!entry) {
    // A reply that does not mention the address: treat like the session ending before its RCPT.
    return { kind: 'final', probe: probe(null) };
  }
  if (entry.state === 'skipped_catch_all') return { kind: 'final', probe: { ...probe(synthetic('accepted', 'catch-all-skip')), catchAll: synthetic('accepted', 'catch-all') } };
  if (entry.state === 'invalid_address' || entry.state === 'utf8_unsupported') return { kind: 'final', probe: probe(synthetic('permanent_other', entry.state)) };
  let entryReply = entry.reply;
  if (entry.state === 'unanswered') {
    // The server cut the session before answering this address: never judged from it. An error
    // limit's cut says nothing about the provider's pace, so the address goes to a new session at
    // once (bounded, should a host cut every session); a rate limit's 421, or resends used up,
    // stands for the address as a refused greeting does (pause, then the ladder).
    const resendable = (input.cutRedispatches ?? 0) < (input.maxCutRedispatches ?? Number.POSITIVE_INFINITY);
    if (resendable && (!reply.cut || isErrorLimitCut(reply))) return { kind: 'redispatch' };
    entryReply = reply.cut?.reply ?? null;
  }
  if (!entryReply) return { kind: 'final', probe: probe(null) };
  const rcpt = classifyReply(entryReply);
  const action = nextAction(rcpt.class, input.attempt, input.ladders, {
    elapsedMs: input.elapsedMs,
    throttleStreak: input.throttleStreak,
    otherIpAvailable: input.otherIpAvailable,
    rcptsInSession: reply.results.filter((r) => r.state === 'replied' || r.reply).length + (reply.catch_all?.reply ? 1 : 0),
  });
  const p = probe(rcpt);
  switch (action.kind) {
    case 'final':
      return { kind: 'final', probe: p };
    case 'retry_at':
      return { kind: 'retry', delayMs: action.delayMs, probe: p };
    case 'pause_provider':
      return { kind: 'pause', probe: p };
    case 'move_ip':
      return { kind: 'move_ip', blockMs: action.blockIpForMs, probe: p };
    case 'reconnect_fewer_rcpts':
      return { kind: 'fewer_rcpts', maxRcpts: action.maxRcpts, probe: p };
  }
}

/** The reply proves the domain accepts any address (remembered so later items skip the session). */
export function provesCatchAll(reply: ProbeSessionReply): boolean {
  return catchAllClass(reply)?.class === 'accepted';
}
