// Every tunable of the scheduler with its default; config.ts reads each from the environment
// (env name beside it). Durations carry their unit in the name. The politeness numbers come from
// ZoneMTA's, Haraka's and Reacher's defaults; per-provider politeness comes from @dv/verdict's provider table
// and these values override it only where a SCHED_* variable is set. The retry ladders, the
// throttle pause and the IP block are @dv/verdict's data (data/retry-ladder.ts), written once.
import { LOAD_LEVEL_THRESHOLDS } from '@dv/contracts';
import { RESOLVER_SANITY_DEFAULTS } from '@dv/mailsec';
import { RETRY_POLICY } from '@dv/verdict';

export const SCHEDULER_DEFAULTS = {
  /** PORT: metrics/health port (the stack's fixed port plan: scheduler 9464, probe-node 9465). */
  port: 9464,

  /** REDIS_PREFIX: prefix of every shared Redis key of the scheduler. */
  redisPrefix: 'dv:sched:',

  // Intake.
  /** VERIFY_STREAM / SINGLE_CONSUMER / LIST_CONSUMER: where items come from (contracts CONSUMERS). */
  verifyStream: 'VERIFY',
  singleConsumer: 'scheduler-single',
  listConsumer: 'scheduler-list',
  /**
   * MAX_ITEMS_IN_FLIGHT: un-acked items one replica holds while working on them (finished items
   * waiting for MongoDB count in STORE_BACKLOG_MAX instead); bounds memory and leaves work for
   * other replicas. By Little's law it caps throughput at this many over an item's time in the
   * live path (~1-1.5 s with the 250 ms window, more while connections are new). 3,000: once
   * the store got cheaper (2026-11-22) 2,000 became the limit (pipeline bench 0.61 against
   * 0.66-0.69 with 3,000 at the same hour; peak RSS 215 -> 219-229 MB).
   */
  maxItemsInFlight: 3_000,
  /** SINGLE_RESERVE: extra in-flight room only single checks may use, so a full list queue never blocks them. */
  singleReserve: 200,
  /**
   * STORE_BACKLOG_MAX: finished items waiting for MongoDB beyond which intake pauses (they do not
   * count in MAX_ITEMS_IN_FLIGHT). A few full batches keep the store busy; more only holds memory
   * (each waiting item keeps its message and result) without storing any faster.
   */
  storeBacklogMax: 3_000,
  /** FETCH_BATCH: messages per pull request. */
  fetchBatch: 100,
  /** ACK_PROGRESS_INTERVAL_MS: `working()` on held messages so a politeness wait never exceeds ack_wait (60 s). */
  ackProgressIntervalMs: 20_000,

  // DNS (MX lookups).
  /** DNS_TIMEOUT_MS: one query attempt. */
  dnsTimeoutMs: 2_000,
  /** DNS_RETRIES: attempts after the first for SERVFAIL / timeout before the item ends unknown. */
  dnsRetries: 2,
  /** DNS_RETRY_DELAY_MS: pause between those attempts. */
  dnsRetryDelayMs: 500,
  /** DNS_CACHE_MAX_TTL_S: upper bound on the shared (Redis) MX cache lifetime; the record TTL applies when shorter. */
  dnsCacheMaxTtlS: 3_600,
  /** DNS_NEGATIVE_TTL_S: lifetime of a cached NXDOMAIN / null MX / no-mail-host answer. */
  dnsNegativeTtlS: 300,
  /**
   * DNS_CANARIES: names that certainly exist, asked to judge whether the resolver can be believed
   * (@dv/mailsec resolver sanity); while it denies them or answers them all alike, no item ends
   * domain_absent. Empty turns the check off; the simulated world sets its own.
   */
  dnsCanaries: RESOLVER_SANITY_DEFAULTS.canaries,
  /** DNS_CANARY_INTERVAL_MS / DNS_CANARY_UNRELIABLE_INTERVAL_MS: how often the canaries are asked while the resolver is believed / not. */
  dnsCanaryIntervalMs: RESOLVER_SANITY_DEFAULTS.intervalMs,
  dnsCanaryUnreliableIntervalMs: RESOLVER_SANITY_DEFAULTS.unreliableIntervalMs,

  // Batching.
  /**
   * BATCH_WINDOW_MS: how long a domain's first item waits for more of its domain. Items waiting
   * here are in flight: a longer wait fills sessions but, by Little's law, lowers the throughput
   * MAX_ITEMS_IN_FLIGHT allows (1 s about halved the bench's rate). Small sessions to one host
   * share a connection instead: the probe node keeps it open for the next one (probe pool.ts).
   */
  batchWindowMs: 250,
  /** RCPT cap per session regardless of the provider table (Microsoft 3, others 20). */
  maxRcptsPerSession: 20,
  /**
   * MAX_CUT_REDISPATCHES: times an address left unanswered by a harvest defence's cut (421 "too many
   * errors") is sent again at once, not counted as an attempt (harvest-cut.ts). The learned error budget
   * stops the cuts after the first; the cap only bounds a host that cuts every session, whose
   * 421 then counts as a throttle (pause, ladder).
   */
  maxCutRedispatches: 5,

  // Politeness (docs/scheduler.md "Politeness"). 0 = take the provider table's value.
  /** POLITE_MAX_SESSIONS: concurrent sessions per (provider, source IP); 0 = provider table (5, Microsoft 2). */
  politeMaxSessions: 0,
  /** POLITE_SESSIONS_PER_MIN: new sessions per minute per (provider, source IP); 0 = table (gmail 10, microsoft 10, yahoo 25, others 60). */
  politeSessionsPerMin: 0,
  /** POLITE_RCPTS_PER_SESSION: 0 = table (20, Microsoft 3). */
  politeRcptsPerSession: 0,
  /** SESSION_LEASE_MS: a concurrency slot frees itself after this, so a dead replica's slot is not held forever. */
  sessionLeaseMs: 90_000,
  /** SLOT_RELEASE_DELAY_MS: a slot is given back this long after the probe's reply, so the MX host has surely seen the close before the next session opens. */
  slotReleaseDelayMs: 50,
  /** PROVIDER_PAUSE_INITIAL_MS: first pause of a (provider, IP) after a throttling reply (10 min); grows by the verdict data's factor (2) per streak. */
  providerPauseInitialMs: RETRY_POLICY.throttlePause.initialMs,
  /** PROVIDER_PAUSE_MAX_MS: cap of the growing pause (1 h). */
  providerPauseMaxMs: RETRY_POLICY.throttlePause.maxMs,
  /** IP_BLOCK_MS: an IP counts as blocked by a provider this long after a policy block (1 h). */
  ipBlockMs: RETRY_POLICY.ipBlockMs,
  /**
   * MX_DOWN_MS / MX_DOWN_TIMEOUT_MS: an MX host that refused (timed out) is not dialled again for
   * this long from that source IP (mx-health.ts); other IPs still try it, and an item ends unknown
   * only when every usable IP found the domain's hosts down.
   */
  mxDownMs: 2 * 60_000,
  mxDownTimeoutMs: 15 * 60_000,
  /** PARK_THRESHOLD_MS: a wait longer than this parks items durably in MongoDB (and acks them) instead of holding them. */
  parkThresholdMs: 5_000,

  // Greylist ladder.
  /** GREYLIST_LADDER_MINUTES: retries this many minutes after the first try (ZoneMTA's defer times: 5, 12, 20, 45, 75). */
  greylistLadderMinutes: RETRY_POLICY.greylist,
  /** GREYLIST_LADDER_SCALE: multiplies every step of both ladders (tests use ~0.001 to turn minutes into tens of ms). */
  greylistLadderScale: 1,
  /**
   * TEMP_FAILURE_LADDER_MINUTES: retries after a temporary failure that is not greylisting (451
   * 4.3.0 to everyone), minutes after the first try (@dv/verdict TEMP_FAILURE_LADDER_MINUTES):
   * the item ends unknown/temp_failure after ~20 min instead of riding the greylist ladder.
   */
  tempFailureLadderMinutes: RETRY_POLICY.temporary,
  /** SWEEP_INTERVAL_MS: how often due retries and job deadlines are looked for. */
  sweepIntervalMs: 1_000,
  /** SWEEP_BATCH: retries re-enqueued per sweep per replica. */
  sweepBatch: 500,
  /**
   * UNPUBLISHED_AFTER_MS: a job whose publish mark (JobDoc.unpublished) has not moved this long
   * belongs to a gateway that died mid-publish; the sweep publishes its remaining items. Kept under JetStream's 2-minute
   * duplicate window (config caps it at 110 s) so a message that did go out is deduplicated.
   */
  unpublishedAfterMs: 60_000,

  // Catch-all memory.
  /** CATCH_ALL_MEMORY_MS: a domain found catch-all is answered risky/catch_all without a session for this long. */
  catchAllMemoryMs: 24 * 3_600_000,

  // Probe fleet.
  /**
   * A node whose answered sessions take more than this many times the fastest usable node's time
   * per address ranks after the others (fleet.ts rankCandidates): a slow link or a loaded node.
   * 2: MX hosts differ in speed, and a node's recent domains with them; only a clear gap counts.
   */
  slowNodeFactor: 2,
  /** Weight of each answered session in a node's moving pace (0-1; 0.2: about the last ten sessions). */
  nodePaceWeight: 0.2,
  /** PROBE_NODE_GONE_MS: a node without a heartbeat for this long is gone; its sessions are retried elsewhere. */
  probeNodeGoneMs: 10_000,
  /**
   * PROBE_EGRESS_FAULT_MS: a source IP whose node reported that it cannot get out from it
   * (node_fault egress: no such address, no route) gets no session for this long; its items go to
   * other IPs at once. Long enough that a dead IP costs one session per minute, not one per item.
   */
  probeEgressFaultMs: 60_000,
  /** PROBE_SESSION_TIMEOUT_MS: the session budget asked of the probe (60 s, the probe node's own default). */
  probeSessionTimeoutMs: 60_000,
  /** PROBE_REQUEST_MARGIN_MS: added to the session budget for the NATS request timeout. */
  probeRequestMarginMs: 5_000,
  /** PROBE_MAIL_FROM: the MAIL FROM of every probe; greylisting keys on it, so it stays stable. */
  probeMailFrom: 'verify@probe.localhost',
  /**
   * PROBE_REDISPATCH_MAX: lost probe sessions (the node timed out, had no responders or went away)
   * one item may take part in while held, each sent again elsewhere; the next loss ends it as a
   * terminal unknown (poison-result.ts). A busy node does not count: nothing was tried.
   */
  probeRedispatchMax: 5,
  /**
   * VERIFY_MAX_DELIVERIES: deliveries of one VERIFY message (JetStream's count: failures released
   * with nak, ack_wait expiries, replica shutdowns) before the item is ended as a terminal unknown
   * instead of worked again (poison-result.ts). Generous: a rolling restart releases held items too.
   */
  verifyMaxDeliveries: 20,

  // Load figures.
  /** LOAD_INTERVAL_MS: how often figures are computed and written to the LOAD bucket. */
  loadIntervalMs: 1_000,
  /** LOAD_KEY: key in the LOAD KV bucket. */
  loadKey: 'current',
  /** LOAD_BUSY_SECONDS / LOAD_SATURATED_SECONDS: expected wait of a new single check at which load turns busy / saturated (10 s, 60 s: @dv/contracts LOAD_LEVEL_THRESHOLDS, which the gateway's fallback uses). */
  loadBusySeconds: LOAD_LEVEL_THRESHOLDS.busySeconds,
  loadSaturatedSeconds: LOAD_LEVEL_THRESHOLDS.saturatedSeconds,
  /** LOAD_BUSY_CAPACITY / LOAD_SATURATED_CAPACITY: share of probe capacity in use at which load turns busy / saturated (0.7, 0.95). */
  loadBusyCapacity: LOAD_LEVEL_THRESHOLDS.busyCapacity,
  loadSaturatedCapacity: LOAD_LEVEL_THRESHOLDS.saturatedCapacity,
  /** THROUGHPUT_HALF_LIFE_MS: half-life of the smoothing of published expected seconds (load.ts smoothLoad), so polls never swing by orders of magnitude. */
  throughputHalfLifeMs: 10_000,
  /** Seconds a single check takes on an idle system (the floor of seconds_per_single). */
  idleSecondsPerSingle: 3,

  // Results.
  /** STORE_COALESCE_MS: finished items wait this long for company before a store flush (a session ends many at once). */
  storeCoalesceMs: 10,
  /** STORE_BATCH_MAX: items per store flush at most (one transaction and one bulk write per side table). */
  storeBatchMax: 1_000,
  /**
   * STORE_PARALLEL_FLUSHES: store flushes running at once (one job's counter transactions still
   * run one at a time, store.ts). 1: measured against the wine-hosted mongod of the dev box,
   * batches of 1,000 store ~1,900 items/s one at a time but ~1,300 three at once (the server is
   * CPU-bound; concurrent writers only contend). A MongoDB with spare cores may gain from more.
   */
  storeParallelFlushes: 1,
  /** CACHE_RETENTION_DAYS: shared verification cache entries live this long. */
  cacheRetentionDays: 30,
  /** The gateway's public address (links in webhook bodies and completion emails). */
  publicBaseUrl: 'http://127.0.0.1:8080',
} as const;
