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

export const probeSessionRequest = z.object({
  session_id: z.string(),
  domain: z.string(),
  mx_hosts: z.array(z.string()).min(1),
  addresses: z.array(z.string().max(320)).min(1).max(100),
  catch_all_probe: z.boolean(),
  mail_from: z.string(),
  source_ip: z.string().nullable(),
  timeouts: probeTimeouts,
});
export type ProbeSessionRequest = z.infer<typeof probeSessionRequest>;

export const PROBE_OUTCOMES = ['completed', 'connect_failed', 'timeout', 'dropped', 'tls_failed', 'protocol_error'] as const;

export const probeSessionReply = z.object({
  session_id: z.string(),
  node_id: z.string(),
  outcome: z.enum(PROBE_OUTCOMES),
  mx_used: z.string().nullable(),
  source_ip: z.string().nullable(),
  tls: z.boolean(),
  catch_all: z.object({ address: z.string(), reply: smtpReply.nullable() }).nullable(),
  results: z.array(z.object({ address: z.string(), reply: smtpReply.nullable(), ms: z.number().nonnegative() })),
  duration_ms: z.number().nonnegative(),
  detail: z.string().optional(),
});
export type ProbeSessionReply = z.infer<typeof probeSessionReply>;

export const probeHeartbeat = z.object({
  node_id: z.string(),
  source_ips: z.array(z.string()),
  capacity: z.number().int().nonnegative(),
  in_flight: z.number().int().nonnegative(),
  provider_health: z.record(z.string(), z.object({ throttled: z.number().int().nonnegative(), blocked: z.number().int().nonnegative() })),
  at: isoDate,
});
export type ProbeHeartbeat = z.infer<typeof probeHeartbeat>;

export const LOAD_LEVELS = ['normal', 'busy', 'saturated'] as const;
export type LoadLevel = (typeof LOAD_LEVELS)[number];

export const loadFigures = z.object({
  load: z.enum(LOAD_LEVELS),
  queue: z.object({ single: z.number().int().nonnegative(), list: z.number().int().nonnegative() }),
  throughput_per_s: z.number().nonnegative(),
  probe_capacity: z.object({ total: z.number().int().nonnegative(), in_use: z.number().int().nonnegative() }),
  seconds_per_single: z.number().nonnegative(),
  seconds_per_1000: z.number().nonnegative(),
  at: isoDate,
});
export type LoadFigures = z.infer<typeof loadFigures>;

export const verifyDoneMessage = z.object({
  job_id: z.string(),
  kind: z.enum(['single', 'job']),
  status: z.enum(['running', 'completed', 'failed', 'canceled']),
});
export type VerifyDoneMessage = z.infer<typeof verifyDoneMessage>;

export const portfolioScanMessage = z.object({
  account_id: z.string(),
  domain: z.string(),
  requested_at: isoDate,
});
export type PortfolioScanMessage = z.infer<typeof portfolioScanMessage>;
