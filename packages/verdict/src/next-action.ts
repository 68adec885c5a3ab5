// What the scheduler does after a classified RCPT reply (docs/verdict.md "After a reply"). Pure: the
// caller passes how far along the item is and its retry policy; the policy's defaults are the
// data in data/retry-ladder.ts, the one place the ladders, the throttle pause and the IP block
// are written down (the scheduler's defaults come from there, its settings override them).
import { GREYLIST_LADDER_MINUTES, POLICY_BLOCK_MINUTES, TEMP_FAILURE_LADDER_MINUTES, THROTTLE_PAUSE } from './data/retry-ladder.ts';
import type { ReplyClass } from './reply-types.ts';

const MINUTE_MS = 60_000;

/** Both ladders, in minutes after the first try (callers may scale them, e.g. in tests). */
export interface RetryLadders {
  /** Greylisting; also bounds the number of throttled attempts. */
  greylist: readonly number[];
  /** Other temporary failures (temporary_other, too_many_recipients with one RCPT). */
  temporary: readonly number[];
}

/** Pause of a (provider, source IP) after throttling replies: initial, times factor per throttle in a row, capped. */
export interface ThrottlePause {
  initialMs: number;
  factor: number;
  maxMs: number;
}

/** The whole retry policy: both ladders, the throttle pause and how long a policy block keeps our IP away. */
export interface RetryPolicy extends RetryLadders {
  throttlePause: ThrottlePause;
  ipBlockMs: number;
}

export const RETRY_POLICY: RetryPolicy = {
  greylist: GREYLIST_LADDER_MINUTES,
  temporary: TEMP_FAILURE_LADDER_MINUTES,
  throttlePause: { initialMs: THROTTLE_PAUSE.initialMinutes * MINUTE_MS, factor: THROTTLE_PAUSE.factor, maxMs: THROTTLE_PAUSE.maxMinutes * MINUTE_MS },
  ipBlockMs: POLICY_BLOCK_MINUTES * MINUTE_MS,
};

/** The ladders alone (RETRY_POLICY is one). */
export const RETRY_LADDERS: RetryLadders = RETRY_POLICY;

export interface NextActionContext {
  /** Milliseconds from the item's first attempt to now (ladder steps count from the first try). */
  elapsedMs?: number;
  /** Throttling replies in a row from this (provider, source IP) before this one. */
  throttleStreak?: number;
  /** Another probe node or source IP not blocked by this provider can take the item. */
  otherIpAvailable?: boolean;
  /** RCPT commands in the session that drew the reply. */
  rcptsInSession?: number;
}

export type NextAction =
  /** Call verdict() with this reply; `why` says why the item ends here. */
  | { kind: 'final'; why: string }
  /** Retry the item after `delayMs` (same source /24 and MAIL FROM for greylisting). */
  | { kind: 'retry_at'; delayMs: number; why: string }
  /** Pause (provider, source IP) for `pauseMs`; the item retries when the pause ends. */
  | { kind: 'pause_provider'; pauseMs: number; why: string }
  /** Mark our IP blocked by this provider for `blockIpForMs` and give the item to another IP. */
  | { kind: 'move_ip'; blockIpForMs: number; why: string }
  /** Reconnect and send at most `maxRcpts` RCPTs per session from now on. */
  | { kind: 'reconnect_fewer_rcpts'; maxRcpts: number; why: string };

/** Pause after the (streak + 1)-th throttling reply in a row: by default 10, 20, 40, 60, 60... minutes. */
export function throttlePauseMs(throttleStreak: number, pause: ThrottlePause = RETRY_POLICY.throttlePause): number {
  return Math.min(pause.initialMs * pause.factor ** Math.max(0, throttleStreak), pause.maxMs);
}

/**
 * `attempt` is the 1-based number of the attempt that drew this reply. Retry n+1 is due
 * ladder[n-1] minutes after the first try, on the greylist ladder for greylisting and on the
 * short temporary ladder for other temporary failures; when the ladder is used up, the item is
 * final (verdict() turns a temporary reply into unknown/temp_failure).
 */
export function nextAction(replyClass: ReplyClass, attempt: number, ladders: RetryLadders | RetryPolicy = RETRY_POLICY, ctx: NextActionContext = {}): NextAction {
  const policy: RetryPolicy = { ...RETRY_POLICY, ...ladders };
  const exhausted = attempt > ladders.greylist.length;
  const ladderRetry = (ladder: readonly number[], why: string): NextAction => {
    if (attempt > ladder.length) return { kind: 'final', why: `retry ladder used up after ${attempt} attempts` };
    const dueMs = ladder[attempt - 1]! * MINUTE_MS;
    return { kind: 'retry_at', delayMs: Math.max(0, dueMs - (ctx.elapsedMs ?? 0)), why };
  };
  switch (replyClass) {
    case 'accepted':
    case 'mailbox_absent':
    case 'mailbox_full':
    case 'will_not_verify':
    case 'permanent_other':
      return { kind: 'final', why: 'the reply is definitive' };
    case 'greylisted':
      return ladderRetry(ladders.greylist, 'greylisted: retry on the greylist ladder from the same source /24 and MAIL FROM');
    case 'temporary_other':
      return ladderRetry(ladders.temporary, 'temporary failure, not greylisting: retry on the short ladder');
    case 'throttled':
      if (exhausted) return { kind: 'final', why: `still throttled after ${attempt} attempts` };
      return { kind: 'pause_provider', pauseMs: throttlePauseMs(ctx.throttleStreak ?? 0, policy.throttlePause), why: 'rate limited: slow down for this provider and IP' };
    case 'too_many_recipients': {
      const sent = ctx.rcptsInSession ?? 1;
      if (sent <= 1) return ladderRetry(ladders.temporary, 'too many recipients with a single RCPT: treat as temporary');
      return { kind: 'reconnect_fewer_rcpts', maxRcpts: Math.max(1, Math.floor(sent / 2)), why: 'too many recipients: halve the RCPTs per session' };
    }
    case 'policy_blocked':
      if (ctx.otherIpAvailable) {
        return { kind: 'move_ip', blockIpForMs: policy.ipBlockMs, why: 'our IP is blocked by this provider: route elsewhere' };
      }
      return { kind: 'final', why: 'blocked by policy and no other IP is available' };
  }
}
