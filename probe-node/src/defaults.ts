// Every tunable of a probe node with its default; config.ts reads them from the environment
// (the env name is given beside each). Durations carry their unit in the name.
export const PROBE_DEFAULTS = {
  /** PORT: metrics/health port (the stack's fixed port plan: scheduler 9464, probe-node 9465). */
  port: 9465,
  /** SMTP_PORT: the port dialled on MX hosts; 25 on the internet, the simulated world's port in tests. */
  smtpPort: 25,
  /** PROBE_HELO_NAME: the FQDN announced in EHLO/HELO; should match the source IPs' PTR records. */
  heloName: 'probe.localhost',
  /** PROBE_MAIL_FROM: used when a request names none; greylisting keys on it, so keep it stable. */
  mailFrom: 'verify@probe.localhost',

  // SMTP timeouts (docs/probe-node.md "Timeouts and caps"). A request may override each one, but
  // never above the cap below: a scheduler bug must not pin a session slot for minutes.
  /** PROBE_CONNECT_TIMEOUT_MS: TCP connect to one MX address. */
  connectTimeoutMs: 10_000,
  /** PROBE_GREETING_TIMEOUT_MS: from connect to the complete 220 greeting. */
  greetingTimeoutMs: 15_000,
  /** PROBE_COMMAND_TIMEOUT_MS: from a command (or the previous reply of a pipelined group) to its reply; also the TLS handshake. */
  commandTimeoutMs: 15_000,
  /** PROBE_SESSION_TIMEOUT_MS: the whole session, reconnects after 452 4.5.3 included. */
  sessionTimeoutMs: 60_000,
  /** PROBE_MAX_CONNECT_TIMEOUT_MS and friends: caps on what a request may ask for. */
  maxConnectTimeoutMs: 30_000,
  maxGreetingTimeoutMs: 60_000,
  maxCommandTimeoutMs: 60_000,
  maxSessionTimeoutMs: 180_000,
  /** Waiting for 221 after QUIT is politeness, not work: never longer than this. */
  quitTimeoutMs: 2_000,

  // Self-defence against hostile servers: bounded memory per session whatever the peer sends.
  /** PROBE_MAX_REPLY_LINE_BYTES: one reply line (RFC 5321 allows 512; real servers send up to ~1 KB). */
  maxReplyLineBytes: 2_048,
  /** PROBE_MAX_REPLY_LINES: lines of one multi-line reply (an EHLO reply has ~10). */
  maxReplyLines: 100,
  /** PROBE_MAX_BUFFERED_BYTES: received bytes held per session (queued replies + the partial line). */
  maxBufferedBytes: 256 * 1024,
  /** Reply text kept per reply; the contract's smtpReply.text allows 4096. */
  maxReplyTextChars: 4_096,

  // Session shape.
  /** PROBE_MAX_CONNECT_ATTEMPTS: MX addresses tried per session before giving up (connect failures). */
  maxConnectAttempts: 5,
  /** PROBE_MAX_RECONNECTS: extra sessions after 452 4.5.3 (too many recipients), each with fewer RCPTs. */
  maxReconnects: 10,
  /**
   * PROBE_IDLE_CONNECTION_MS: a connection whose transaction ended cleanly stays open this long
   * (after RSET) for the next session to the same MX host from the same source address (pool.ts).
   * A scheduler sends a domain's addresses as they arrive, often moments apart; reuse saves the
   * host a connection and us connect + greeting + EHLO. A tenth of the 5 minutes a server must
   * wait for a command (RFC 5321 §4.5.3.2.7), and within our own concurrency budget for the host
   * (pool.ts). 0 = QUIT after every session.
   */
  idleConnectionMs: 30_000,
  /** PROBE_MAX_IDLE_CONNECTIONS: idle connections kept at most (oldest closed first): bounds sockets and memory (a few KB each). */
  maxIdleConnections: 1_000,
  /** PROBE_MAX_TRANSACTIONS_PER_CONNECTION: transactions on one connection before it is closed (Postfix-style reuse limit). */
  maxTransactionsPerConnection: 100,
  /**
   * PROBE_ASSUMED_ERROR_BUDGET: error replies a host is assumed to tolerate on one connection when
   * the scheduler has learned none (request `error_budget`). Harvest defences count errors per
   * connection across RSET (Postfix: slowed replies from 10, 421 at 20 by default; strict sites
   * 3-5), so on a kept connection the RCPTs go out in groups that stay under the budget even if
   * all are rejected (pool.ts worthReusing, dialogue.ts errorRoom). 10 stays under Postfix's
   * defaults; a stricter host cuts once and its budget is learned. 1 = never reuse a connection
   * that drew an error.
   */
  assumedErrorBudget: 10,
  /** Random local part of the catch-all probe; design: at least 16 characters. */
  catchAllLocalPartChars: 20,
  /**
   * PROBE_PIPELINING: use PIPELINING (RFC 2920) when offered: MAIL with the catch-all RCPT, then
   * all RCPTs, then RSET+QUIT, one round trip each. Off: one command per round trip.
   */
  pipelining: true,
  /** PROBE_STARTTLS: use STARTTLS when offered. */
  startTls: true,
  /**
   * PROBE_TLS_CLEAR_FALLBACK: after a failed TLS handshake, reconnect once in clear text (what
   * opportunistic MTAs such as Postfix do). Off: the session ends with outcome tls_failed.
   */
  tlsClearFallback: true,

  // Capacity and heartbeat.
  /** PROBE_MAX_CONCURRENT_SESSIONS: sessions in flight; more requests get outcome `busy` at once. */
  maxConcurrentSessions: 200,
  /** PROBE_HEARTBEAT_INTERVAL_MS: how often `probe.heartbeat` is published. */
  heartbeatIntervalMs: 2_000,
  /** PROBE_HEALTH_WINDOW_MS: throttled/blocked replies counted in the heartbeat cover this window. */
  healthWindowMs: 5 * 60_000,
  /** Providers tracked in the health window; the least recently seen are forgotten beyond it. */
  healthMaxProviders: 500,
  /** PROBE_DRAIN_TIMEOUT_MS: on SIGTERM, how long in-flight sessions may run before they are cut. */
  drainTimeoutMs: 6_000,

  // MX host name resolution (the scheduler sends host names; the probe resolves them).
  /**
   * PROBE_ALLOW_PRIVATE_MX: connect to MX addresses that are loopback, private, link-local, CGNAT,
   * cloud metadata or otherwise special-purpose. Off: such an address is refused before any
   * connection (a hostile domain must not turn the fleet into a scanner of our own network).
   * Test worlds on 127.x turn it on; refused when NODE_ENV=production.
   */
  allowPrivateMx: false,
  /** PROBE_DNS_TIMEOUT_MS: one DNS query attempt. */
  dnsTimeoutMs: 3_000,
  /** Resolved MX addresses are cached this long at most (the record's TTL if shorter). */
  dnsCacheMaxTtlMs: 5 * 60_000,
  /** Cached host names at most (oldest evicted first). */
  dnsCacheMaxEntries: 10_000,
} as const;
