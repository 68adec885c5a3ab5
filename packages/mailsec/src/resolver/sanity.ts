// Whether a resolver can be believed. Hijacking resolvers, captive portals and broken sandboxes
// answer NXDOMAIN to every name, or one address to every name; believed, one such resolver would
// have us call every domain absent and tell a customer to delete a whole list. So names that
// certainly exist (canaries) are asked, and this pure rule reads their answers.
import type { Rcode } from './types.ts';

/** Every tunable of the sanity check with its default; durations carry their unit. */
export const RESOLVER_SANITY_DEFAULTS = {
  /**
   * Names that certainly exist and resolve to different addresses: three of the largest mailbox
   * providers of the provider table (@dv/verdict PROVIDERS). The simulated world and tests set
   * their own (DNS_CANARIES).
   */
  canaries: ['gmail.com', 'outlook.com', 'yahoo.com'] as readonly string[],
  /** Canaries are asked this often while the resolver is believed. */
  intervalMs: 60_000,
  /** ...and this often while it is not, so it is believed again soon after it mends. */
  unreliableIntervalMs: 10_000,
  /**
   * An NXDOMAIN is believed only when the canaries passed within this long; a later one (NXDOMAIN
   * answers piling up) starts a check and waits for it, so a resolver that starts lying is caught
   * before its first denial counts.
   */
  nxdomainFreshMs: 10_000,
  /** Per canary query; a check never takes longer than about this (queries run in parallel). */
  timeoutMs: 2_000,
  /** decision.retry_after_seconds of the unknown results given while the resolver is not believed. */
  retryAfterS: 600,
} as const;

/** One canary's answer to an A query. */
export interface CanaryAnswer {
  name: string;
  rcode: Rcode;
  addresses: readonly string[];
}

/**
 * `unchecked`: no canary has answered yet (believed: no evidence against it). `denies_existing`:
 * most canaries are NXDOMAIN. `one_address`: every canary resolves to the same addresses.
 */
export type SanityState = 'unchecked' | 'trustworthy' | 'denies_existing' | 'one_address';

export interface SanityJudgement {
  /** `inconclusive`: no canary got a usable answer (resolver down, offline); the last state stands. */
  state: Exclude<SanityState, 'unchecked'> | 'inconclusive';
  /** Why, in words for logs, /readyz and API answers. */
  detail: string;
}

export function isBelieved(state: SanityState): boolean {
  return state === 'unchecked' || state === 'trustworthy';
}

/** Reads one round of canary answers. */
export function judgeCanaries(answers: readonly CanaryAnswer[]): SanityJudgement {
  const denied = answers.filter((a) => a.rcode === 'NXDOMAIN');
  const exist = answers.filter((a) => a.rcode === 'NOERROR' || a.rcode === 'NODATA');
  const conclusive = denied.length + exist.length;
  if (conclusive === 0) return { state: 'inconclusive', detail: `no canary got an answer (${answers.map((a) => `${a.name} ${a.rcode}`).join(', ')})` };
  // A majority, not one: a canary may really go away, but not most of them at once.
  if (denied.length * 2 > conclusive) {
    return { state: 'denies_existing', detail: `the resolver says ${denied.map((a) => a.name).join(', ')} do not exist (NXDOMAIN), and they certainly do` };
  }
  const withAddresses = exist.filter((a) => a.addresses.length > 0);
  const sets = new Set(withAddresses.map((a) => [...a.addresses].sort().join(',')));
  if (withAddresses.length >= 2 && sets.size === 1) {
    return { state: 'one_address', detail: `the resolver answers ${withAddresses.map((a) => a.name).join(', ')} with the same address (${[...sets][0]}), as if it answered every name with one address` };
  }
  return { state: 'trustworthy', detail: 'the canaries resolve as they should' };
}
