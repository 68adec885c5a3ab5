// Every tunable of @dv/notify in one place. Durations carry their unit in the name. The services
// that run the notify worker (the scheduler) expose these through their own config; the values
// here are what they get when nothing is set.

export const NOTIFY_DEFAULTS = {
  /**
   * Wait before each retry of a failed webhook delivery, counted from the end of the attempt that
   * failed (Svix/Stripe style): the spec's 1 min, 5 min, 30 min, 2 h and 6 h. Six attempts in all
   * (the first try plus five retries) over about 8.6 hours; then the delivery gives up.
   */
  webhookRetryDelaysS: [60, 5 * 60, 30 * 60, 2 * 3_600, 6 * 3_600] as readonly number[],
  /** Multiplies every retry delay; tests run the ladder in milliseconds with e.g. 0.0001. */
  ladderScale: 1,
  /** Total time for one POST: connect, TLS, request and response (the spec's 10 s). */
  webhookTimeoutMs: 10_000,
  /** Bytes of the receiver's response body we read at most; the rest is dropped unread. */
  maxResponseBytes: 64 * 1024,
  /**
   * How long a claimed delivery stays ours before another worker may take it over (a crashed
   * worker's attempt is retried then). Must comfortably exceed webhookTimeoutMs and smtpTimeoutMs.
   */
  claimLeaseMs: 60_000,
  /** How often a worker looks for due deliveries and emails. */
  pollIntervalMs: 1_000,
  /** Deliveries and emails one worker sends at the same time (one slow receiver must not block the rest). */
  concurrency: 8,
  /** Receivers may take a while to return the timestamp to us; signatures older than this are refused. */
  signatureToleranceS: 300,
  /** Identifies our POSTs in receivers' logs. */
  userAgent: 'dv-webhooks/1.0 (+job.completed)',
  /** SMTP connect, greeting and socket timeouts for the completion email. */
  smtpTimeoutMs: 15_000,
  /** Completion email: how many tries (on the webhook ladder's delays) before giving up. */
  emailMaxAttempts: 6,
  /** Lifetime of the signed CSV link in a completion email; results are retained about 30 days. */
  downloadLinkTtlS: 7 * 24 * 3_600,
} as const;
