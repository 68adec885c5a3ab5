// Scoring rubric. The spec fixes deliverable 90-99, catch-all 50-69, unknown 30, mailbox absent 5,
// other undeliverable 0; the rest are our decisions (docs/verdict.md explains each).

/** Banded outcomes start at `base` and lose the signal penalties below, never leaving the band. */
export const SCORE_BANDS = {
  mailbox_confirmed: { base: 99, min: 90, max: 99 },
  catch_all: { base: 65, min: 50, max: 69 },
  // Yahoo/AOL accept every RCPT; most addresses people give for them do exist, but it is unproven.
  accept_all_provider: { base: 62, min: 50, max: 69 },
} as const;

/** Points taken off a banded score for each signal present. */
export const SIGNAL_PENALTIES = {
  /** Shared mailboxes: read by nobody in particular, complain more. */
  role: 4,
  /** Machine-made or mashed local parts are often fake sign-ups. */
  gibberish: 6,
  /** A suggestion exists: the domain is probably a slip of a popular one. */
  typo: 5,
  /** Consumer mailbox: fine to send to, slightly weaker for B2B lists. */
  free: 1,
} as const;

/** Fixed scores for the other outcomes. */
export const FIXED_SCORES = {
  mailbox_full: 20,
  disposable: 10,
  unknown: 30,
  mailbox_absent: 5,
  undeliverable_other: 0,
} as const;

/** decision.retry_after_seconds for unknown results: when a fresh check is worth it. */
export const RETRY_AFTER_SECONDS = {
  /** The greylist ladder or throttle pauses ran out; an hour later the server has usually calmed. */
  temp_failure: 3600,
  /** Connect/DNS timeouts: a timed-out MX is cached as down for 15 min (ZoneMTA), so nothing changes sooner. */
  timeout: 900,
  /** Our IP is blocked for that provider for 1 h (ZoneMTA's blacklist TTL). */
  provider_blocked: 3600,
  /** The server never verifies (252); a day later is the earliest anything could change. */
  no_signal: 86400,
  /** The job's deadline cut the check short; the next check can start at once. */
  deadline: 60,
} as const;

/**
 * domain.health_score when the caller has none (the mailsec engine owns the real score).
 * Keyed by DNS outcome; `ok_implicit` is a domain with no MX that takes mail on its A record.
 */
export const HEALTH_SCORE_FALLBACK = {
  ok: 80,
  ok_implicit: 50,
  null_mx: 0,
  nxdomain: 0,
  no_mail_host: 0,
  mx_hosts_absent: 0,
  servfail: 50,
  timeout: 50,
  resolver_unreliable: 50,
  unchecked: 50,
} as const;
