// Score, decision and safe_to_send from an outcome and the local signals (rubric: data/scoring.ts).
import { FIXED_SCORES, RETRY_AFTER_SECONDS, SCORE_BANDS, SIGNAL_PENALTIES } from './data/scoring.ts';
import type { ListSignals } from './lists.ts';
import type { Decision, SafeToSend, Status, SubStatus, UnknownSubStatus } from './result-types.ts';

export interface Outcome {
  status: Status;
  sub_status: SubStatus;
  reason: string;
}

const NO_SIGNALS: ListSignals = { disposable: false, free: false, role: false, roleWord: null, gibberish: false, didYouMean: null };

function penalties(s: ListSignals): number {
  return (
    (s.role ? SIGNAL_PENALTIES.role : 0) +
    (s.gibberish ? SIGNAL_PENALTIES.gibberish : 0) +
    (s.didYouMean ? SIGNAL_PENALTIES.typo : 0) +
    (s.free ? SIGNAL_PENALTIES.free : 0)
  );
}

export function scoreFor(outcome: Outcome, signals: ListSignals = NO_SIGNALS): number {
  const sub = outcome.sub_status;
  if (sub === 'mailbox_confirmed' || sub === 'catch_all' || sub === 'accept_all_provider') {
    const band = SCORE_BANDS[sub];
    return Math.min(band.max, Math.max(band.min, band.base - penalties(signals)));
  }
  if (sub === 'mailbox_full') return FIXED_SCORES.mailbox_full;
  if (sub === 'disposable') return FIXED_SCORES.disposable;
  if (sub === 'mailbox_absent') return FIXED_SCORES.mailbox_absent;
  if (outcome.status === 'unknown') return FIXED_SCORES.unknown;
  return FIXED_SCORES.undeliverable_other;
}

/** Spec decision rules: send = deliverable; drop = undeliverable, disposable, mailbox full; review = the rest. */
export function decisionFor(outcome: Outcome, retryAfterSeconds?: number): Decision {
  const { status, sub_status: sub } = outcome;
  if (status === 'deliverable') return { action: 'send', why: 'the mail server confirmed the mailbox' };
  if (status === 'undeliverable') {
    const why = sub === 'syntax' ? 'the address is not valid' : sub === 'domain_absent' ? 'the domain takes no mail' : 'the mailbox does not exist';
    return { action: 'drop', why };
  }
  if (sub === 'disposable') return { action: 'drop', why: 'disposable (throwaway) address' };
  if (sub === 'mailbox_full') return { action: 'drop', why: 'the mailbox is full; mail to it bounces' };
  if (status === 'risky') return { action: 'review', why: 'the domain accepts every address, so this one cannot be proven' };
  const retry = retryAfterSeconds ?? RETRY_AFTER_SECONDS[sub as UnknownSubStatus] ?? RETRY_AFTER_SECONDS.temp_failure;
  return { action: 'review', why: 'no verdict reached yet; check again later', retry_after_seconds: retry };
}

/** safe_to_send follows the decision: send -> yes, review -> caution, drop -> no. */
export function safeToSendFor(decision: Decision): SafeToSend {
  return decision.action === 'send' ? 'yes' : decision.action === 'review' ? 'caution' : 'no';
}
