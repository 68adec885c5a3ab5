// Pure: sessions cut by a directory-harvest defence. Such a host counts error replies per
// connection (RSET does not reset the count) and answers `421 … too many errors` once it has sent
// its budget of them, leaving the rest of the RCPTs unanswered (docs/probe-node.md). The
// scheduler sends those addresses again in new sessions and learns the budget, as it learns an
// RCPT limit from 452 4.5.3, so later batches for the host stay under it.
import type { ProbeSessionReply } from '@dv/contracts';
import { classifyReply } from '@dv/verdict';
import type { ProviderRow } from '@dv/verdict';
import { shouldProbeCatchAll } from '@dv/verdict';

/** The reply table's row for a harvest defence's 421 (packages/verdict data/reply-rules.ts). */
export const ERROR_LIMIT_RULE = 'too-many-errors';

/** The session was cut by an error limit (not a rate limit: that 421 pauses the provider instead). */
export function isErrorLimitCut(reply: ProbeSessionReply): boolean {
  return reply.cut !== undefined && classifyReply(reply.cut.reply).rule === ERROR_LIMIT_RULE;
}

/**
 * The error budget the cut shows: the errors the connection had drawn when the host closed it
 * (Postfix cuts once the count reaches smtpd_hard_error_limit). Null when the reply shows none.
 */
export function errorBudgetFrom(reply: ProbeSessionReply): number | null {
  if (!isErrorLimitCut(reply)) return null;
  const errors = reply.cut!.errors;
  return errors >= 1 ? errors : null;
}

/**
 * RCPTs one session may carry under a learned budget: every address may be rejected and the
 * catch-all probe usually is, and the count must stay below the budget so that even the RSET
 * after the last RCPT is answered (the host checks the count before each command).
 */
export function rcptsWithinErrorBudget(budget: number | null, catchAllProbe: boolean): number {
  if (budget === null) return Number.POSITIVE_INFINITY;
  return Math.max(1, budget - 1 - (catchAllProbe ? 1 : 0));
}

/** Whether sessions for this domain send the catch-all probe (the request's catch_all_probe). */
export function probesCatchAll(domain: string, provider: ProviderRow): boolean {
  return shouldProbeCatchAll(domain, provider) && !provider.quirks.acceptsAllAtRcpt;
}
