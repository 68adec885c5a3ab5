// Every tunable of @dv/net in one place; callers may pass their own per call.

export const NET_DEFAULTS = {
  /** The spec caps webhook_url at 2048 characters; a longer URL is refused before it is parsed. */
  maxUrlLength: 2_048,
  /** A target's host name must resolve within this (getaddrinfo itself has no deadline). */
  resolveTimeoutMs: 5_000,
} as const;
