import { z } from 'zod';

// A zod schema for every message that crosses NATS. Producers build the object, consumers
// `parse` it: a malformed message is rejected at the edge, never half-processed.

const isoDate = z.iso.datetime();

export const verifyItemMessage = z.object({
  job_id: z.string(),
  account_id: z.string(),
  seq: z.number().int().nonnegative(),
  email: z.string().max(320),
  mode: z.enum(['live', 'sandbox']),
  priority: z.enum(['single', 'list']),
  max_age_days: z.number().int().min(0).max(365).nullable(),
  force_fresh: z.boolean(),
  enqueued_at: isoDate,
});
export type VerifyItemMessage = z.infer<typeof verifyItemMessage>;

export const smtpReply = z.object({
  code: z.number().int().min(0).max(999),
  enhanced: z.string().nullable(),
  text: z.string().max(4096),
});
export type SmtpReply = z.infer<typeof smtpReply>;

export const probeTimeouts = z.object({
  connectMs: z.number().int().positive(),
  greetingMs: z.number().int().positive(),
  commandMs: z.number().int().positive(),
  sessionMs: z.number().int().positive(),
});

// Probe messages (docs/probe-node.md). Fields marked "added" are optional so that older producers
// and consumers keep working.
export const probeSessionRequest = z.object({
  session_id: z.string(),
  domain: z.string(),
  /** Host names (or IP literals) in preference order; the probe resolves them and tries the next on connect failure. */
  mx_hosts: z.array(z.string()).min(1),
  addresses: z.array(z.string().max(320)).min(1).max(100),
  catch_all_probe: z.boolean(),
  mail_from: z.string(),
  /** One of the node's PROBE_SOURCE_IPS; null or absent (added) = the node picks one by domain. */
  source_ip: z.string().nullable().optional(),
  /** Each value overrides the node's default within the node's cap; absent values (added) take the default. */
  timeouts: probeTimeouts.partial().optional(),
  /**
   * Added: error replies the MX hosts tolerate on one connection before they cut it (421 "too many
   * errors"), as the scheduler learned it; null or absent = not known. The probe reuses a kept
   * connection that has drawn errors only while its errors plus this session's possible ones stay under it.
   */
  error_budget: z.number().int().positive().nullable().optional(),
});
export type ProbeSessionRequest = z.infer<typeof probeSessionRequest>;

/**
 * `busy` (added): the node is at capacity or shutting down; nothing was sent; ask another node.
 * `mx_refused` (added): every MX address was private or special-purpose and refused before any connection.
 */
export const PROBE_OUTCOMES = ['completed', 'connect_failed', 'timeout', 'dropped', 'tls_failed', 'protocol_error', 'busy', 'mx_refused'] as const;
export type ProbeOutcomeName = (typeof PROBE_OUTCOMES)[number];

/** Where a reply came from: RCPT for the address itself, else the step that refused the whole session. */
export const PROBE_REPLY_STAGES = ['greeting', 'ehlo', 'mail', 'rcpt'] as const;
/**
 * What happened to one address: `replied` (reply present), `invalid_address` (control characters
 * or a malformed path: never sent), `skipped_catch_all` (the catch-all probe was accepted, so the
 * RCPT was not sent), `not_attempted` (the session ended first), `utf8_unsupported` (non-ASCII
 * address and the server does not offer SMTPUTF8), `unanswered` (added: the server cut the session,
 * see `cut`, before it answered this address; no reply, never to be judged, to be sent again).
 */
export const PROBE_ADDRESS_STATES = ['replied', 'invalid_address', 'skipped_catch_all', 'not_attempted', 'utf8_unsupported', 'unanswered'] as const;

export const probeSessionReply = z.object({
  session_id: z.string(),
  node_id: z.string(),
  outcome: z.enum(PROBE_OUTCOMES),
  mx_used: z.string().nullable(),
  source_ip: z.string().nullable(),
  tls: z.boolean(),
  catch_all: z.object({ address: z.string(), reply: smtpReply.nullable(), ms: z.number().nonnegative().optional() }).nullable(),
  results: z.array(
    z.object({
      address: z.string(),
      reply: smtpReply.nullable(),
      ms: z.number().nonnegative(),
      stage: z.enum(PROBE_REPLY_STAGES).optional(),
      state: z.enum(PROBE_ADDRESS_STATES).optional(),
    }),
  ),
  duration_ms: z.number().nonnegative(),
  detail: z.string().optional(),
  /** Added: the IP address of the MX host the replies came from. */
  mx_ip: z.string().nullable().optional(),
  /** Added: whether the TLS certificate verified for the MX host name (TLS is used either way). */
  tls_verified: z.boolean().optional(),
  /** Added: TCP connections opened (failed attempts and reconnects after 452 4.5.3 included). */
  connections: z.number().int().nonnegative().optional(),
  /** Added: MX addresses that could not be reached before one answered (or all failed). */
  connect_errors: z.array(z.object({ host: z.string(), ip: z.string().nullable(), error: z.string() })).optional(),
  /**
   * Added: the server closed the session (421) in the middle of the RCPTs, e.g. a directory-harvest
   * defence's "too many errors"; `errors` = error replies (4xx/5xx) that connection had drawn before,
   * over all its transactions. The addresses it left are `unanswered`.
   */
  cut: z.object({ stage: z.enum(PROBE_REPLY_STAGES), reply: smtpReply, errors: z.number().int().nonnegative() }).optional(),
  /**
   * Added: the session ended because of the probe node itself, not the MX host: `shutdown` (the
   * node cut it while stopping) or `egress` (every connection attempt failed on the node's own
   * side: its source address cannot be bound, no route out, a local firewall). It says nothing
   * about the host or the addresses: the addresses without a reply go to another node or IP (not
   * an attempt) and no MX host is marked down. Absent: any failure may be the host's, and counts
   * against that (MX host, source IP) pair only (docs/scheduler.md "MX health").
   */
  node_fault: z.enum(['shutdown', 'egress']).optional(),
  /** Added: milliseconds spent in each step of the first working connection. */
  timings: z
    .object({
      connect_ms: z.number().nonnegative().nullable(),
      greeting_ms: z.number().nonnegative().nullable(),
      ehlo_ms: z.number().nonnegative().nullable(),
      tls_ms: z.number().nonnegative().nullable(),
      mail_ms: z.number().nonnegative().nullable(),
    })
    .optional(),
});
export type ProbeSessionReply = z.infer<typeof probeSessionReply>;

export const probeHeartbeat = z.object({
  node_id: z.string(),
  source_ips: z.array(z.string()),
  capacity: z.number().int().nonnegative(),
  in_flight: z.number().int().nonnegative(),
  provider_health: z.record(z.string(), z.object({ throttled: z.number().int().nonnegative(), blocked: z.number().int().nonnegative() })),
  at: isoDate,
  /** Added: the window `provider_health` counts cover. */
  window_ms: z.number().int().positive().optional(),
  /** Added: true in the last heartbeat of a node that is shutting down (capacity is then 0). */
  draining: z.boolean().optional(),
});
export type ProbeHeartbeat = z.infer<typeof probeHeartbeat>;

export const LOAD_LEVELS = ['normal', 'busy', 'saturated'] as const;
export type LoadLevel = (typeof LOAD_LEVELS)[number];
/** no_probe_capacity: no probe node is alive, so live checks cannot progress. */
export const LOAD_REASONS = ['no_probe_capacity'] as const;
export type LoadReason = (typeof LOAD_REASONS)[number];

export const loadFigures = z.object({
  load: z.enum(LOAD_LEVELS),
  queue: z.object({ single: z.number().int().nonnegative(), list: z.number().int().nonnegative() }),
  throughput_per_s: z.number().nonnegative(),
  probe_capacity: z.object({ total: z.number().int().nonnegative(), in_use: z.number().int().nonnegative() }),
  /** null when no estimate can be honest (see `reason`). */
  seconds_per_single: z.number().nonnegative().nullable(),
  seconds_per_1000: z.number().nonnegative().nullable(),
  /** Why the service cannot work as usual right now; null when it can. */
  reason: z.enum(LOAD_REASONS).nullable().default(null),
  at: isoDate,
});
export type LoadFigures = z.infer<typeof loadFigures>;

export const verifyDoneMessage = z.object({
  job_id: z.string(),
  kind: z.enum(['single', 'job']),
  status: z.enum(['running', 'completed', 'failed', 'canceled']),
});
export type VerifyDoneMessage = z.infer<typeof verifyDoneMessage>;

/** One scan of one domain in one rescan slot (JetStream PORTFOLIO, message id `<domain>:<slot>`). */
export const portfolioScanMessage = z.object({
  domain: z.string().min(1).max(253),
  /** The scan slot (`slotOf`: epoch milliseconds of the due time); the store is idempotent per (domain, slot). */
  slot: z.number().int().nonnegative(),
  /** `added`: a domain just added (priority); `due`: a planned rescan; `republish`: its earlier message was lost. */
  reason: z.enum(['added', 'due', 'republish']),
  /** Sweep the whole DKIM selector list whatever the domain's last sweep (workers also decide on their own). */
  full_dkim_sweep: z.boolean().optional(),
  /**
   * What the planner read of the domain when it published a rescan: the worker starts from it on
   * a first delivery instead of reading the document again (a MongoDB round trip per few scans).
   * A redelivery, or a message without it (a domain just added), reads the document.
   */
  start: z
    .object({
      last_slot: z.number().int().nullable(),
      /** Epoch milliseconds of the last full DKIM sweep. */
      last_full_dkim_at: z.number().nullable(),
      dkim_selectors: z.string().max(4096).nullable(),
      ns: z.string().max(4096).nullable(),
    })
    .optional(),
});
export type PortfolioScanMessage = z.infer<typeof portfolioScanMessage>;
