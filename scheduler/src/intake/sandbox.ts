// Sandbox items: the deterministic table answer (@dv/verdict sandboxResult), or, when the caller
// allows an age (max_age_days, not force_fresh), the account's stored sandbox result served with
// `cached: true`, as a live item is served from the shared cache. The stored sandbox result is the
// account's latest result under the sandbox key mode (latestResultId): a key apart from the shared
// live cache, which sandbox answers never reach (store.ts), so sandbox never feeds live.
import type { Db } from 'mongodb';
import { COLLECTIONS, latestResultId, type LatestResultDoc } from '@dv/contracts';
import { sandboxResult, type VerificationResult } from '@dv/verdict';

const DAY_MS = 86_400_000;

export interface SandboxAsk {
  accountId: string;
  email: string;
  ref: string | null;
  /** null: no stored result may be served (no max_age_days, or force_fresh). */
  maxAgeDays: number | null;
}

/** The answer for a sandbox item and the attempts it counts (a stored result keeps its own). */
export async function sandboxAnswer(db: Db, ask: SandboxAsk, now: Date): Promise<{ result: VerificationResult; attempts: number }> {
  if (ask.maxAgeDays !== null) {
    const since = new Date(now.getTime() - ask.maxAgeDays * DAY_MS);
    const stored = await db
      .collection<LatestResultDoc>(COLLECTIONS.latestResults.name)
      .findOne({ _id: latestResultId(ask.accountId, 'sandbox', ask.email), checked_at: { $gte: since } }, { projection: { result: 1 } });
    // As the live cache: an `unknown` answer is not worth serving again.
    if (stored && stored.result.status !== 'unknown') return { result: { ...stored.result, email: ask.email, ref: ask.ref, cached: true }, attempts: stored.result.attempts };
  }
  return { result: sandboxResult(ask.email, now, ask.ref), attempts: 1 };
}
