// Bounded failure: an item whose message keeps coming back (processing fails, a replica dies on it)
// or whose sessions keep getting lost (the node times out or vanishes on it) must end, or its job
// never completes. It ends as a terminal unknown with a reason; the VERIFY consumers keep
// max_deliver unlimited on purpose, since a message JetStream drops would leave its item open.
import { checkSyntax, verdict, type VerificationResult } from '@dv/verdict';
import type { HeldItem } from './held-item.ts';

/** Why an item was given up: its JetStream deliveries or its lost probe sessions passed their bound. */
export type PoisonReason = 'deliveries' | 'lost_sessions';

const REASONS: Record<PoisonReason, (n: number) => string> = {
  deliveries: (n) => `checking this address failed ${n} times (the item kept being redelivered); given up`,
  lost_sessions: (n) => `${n} probe sessions for this address were lost (the probe node timed out or went away); given up`,
};

/** The terminal result of a poison item: unknown / no_signal with the reason, never a guess. */
export function poisonResult(h: Pick<HeldItem, 'item'>, reason: PoisonReason, count: number, now: Date): VerificationResult {
  const { email, ref } = h.item;
  const syntax = checkSyntax(email);
  // A bad address is still judged by its syntax: that answer needs nothing that failed.
  if (!syntax.ok) return verdict({ email, syntax, now, ref });
  const result = verdict({ email, syntax, now, ref });
  return { ...result, sub_status: 'no_signal', reason: REASONS[reason](count), attempts: h.item.attempts };
}
