import type { Request } from 'express';
import { QUOTA_SUBJECTS } from '../caller.ts';
import { clientIp } from '../client.ts';
import type { LookupContext } from '../context.ts';

// Today's allowance of the person reading a page: the anonymous quota the REST calls from this
// address count against. Only read (peek): looking at the page spends nothing. When the quota
// store cannot be read the page says so instead of failing.

export interface Allowance {
  remaining: number;
  limit: number;
  resetsAt: string;
}

export async function anonymousAllowance(ctx: LookupContext, req: Request): Promise<Allowance | null> {
  try {
    const state = await ctx.quotas.anonymous.peek(QUOTA_SUBJECTS.anonymous(clientIp(req)));
    return { remaining: state.remaining, limit: state.limit, resetsAt: new Date(state.resetAtMs).toISOString() };
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'quota store unreadable for a page');
    return null;
  }
}

/** One sentence for the page. */
export function allowanceText(a: Allowance | null, freeKeyPerDay: number): string {
  if (!a) return 'Today\'s allowance cannot be read right now; lookups still count as usual.';
  const left = a.remaining === 0 ? 'No lookups are left' : `${a.remaining} of ${a.limit} lookups are left`;
  return `${left} today for your address (it resets at 00:00 UTC). Cached answers are free. A free API key allows ${freeKeyPerDay} a day.`;
}
