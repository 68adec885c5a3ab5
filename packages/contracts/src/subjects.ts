// NATS subjects, JetStream streams and durable consumers as code. `ensureStreams` in
// @dv/runtime creates or updates them idempotently at every service start. Only features of
// nats-server 2.9 are used (single `filter_subject`, no multi-filter consumers).

export const SUBJECTS = {
  /** JetStream: one single-address check (higher priority than list items). */
  verifySingle: 'verify.item.single',
  /** JetStream: one item of a list job. */
  verifyList: 'verify.item.list',
  /** Core NATS: published once per finished single check and once per finished job; wakes long-polls. */
  verifyDone: (jobId: string) => `verify.done.${jobId}`,
  verifyDoneAll: 'verify.done.>',
  /** Core NATS request/reply: one SMTP session on a given probe node. */
  probeSession: (nodeId: string) => `probe.${nodeId}.session`,
  /** Core NATS: probe-node heartbeats (capacity, in-flight, per-provider health). */
  probeHeartbeat: 'probe.heartbeat',
  /** JetStream: a domain just added to a portfolio, scanned within seconds (workers pull it first). */
  portfolioScanPriority: 'portfolio.scan.priority',
  /** JetStream: a rescan the planner found due. */
  portfolioScanRescan: 'portfolio.scan.rescan',
} as const;

export interface StreamDef {
  name: string;
  subjects: string[];
  retention: 'workqueue' | 'limits';
  maxAgeMs: number;
  /** Messages replicated across servers when no NATS_STREAM_REPLICAS is given (the services pass theirs to ensureStreams). */
  replicas: number;
  duplicateWindowMs: number;
}

export interface ConsumerDef {
  stream: string;
  durable: string;
  filterSubject: string;
  ackWaitMs: number;
  maxDeliver: number;
  maxAckPending: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const STREAMS: readonly StreamDef[] = [
  // Work queue: a message leaves the stream once a scheduler acks it, which it does only after the
  // item's outcome is stored (so a crash redelivers, never loses).
  { name: 'VERIFY', subjects: ['verify.item.>'], retention: 'workqueue', maxAgeMs: 7 * DAY_MS, replicas: 1, duplicateWindowMs: 2 * 60 * 1000 },
  { name: 'PORTFOLIO', subjects: ['portfolio.scan.>'], retention: 'workqueue', maxAgeMs: 2 * DAY_MS, replicas: 1, duplicateWindowMs: 2 * 60 * 1000 },
];

export const CONSUMERS: readonly ConsumerDef[] = [
  // Two durables on VERIFY, one per priority, shared by every scheduler replica: replicas pull
  // single checks first and list items only when no single check waits.
  { stream: 'VERIFY', durable: 'scheduler-single', filterSubject: 'verify.item.single', ackWaitMs: 60_000, maxDeliver: -1, maxAckPending: 10_000 },
  { stream: 'VERIFY', durable: 'scheduler-list', filterSubject: 'verify.item.list', ackWaitMs: 60_000, maxDeliver: -1, maxAckPending: 50_000 },
  // Two durables on PORTFOLIO, one per priority, shared by every scan worker replica (message id
  // `<domain>:<slot>`, so a republish inside the duplicate window is dropped). Workers keep long
  // scans alive with working() and end a message that failed maxDeliver times themselves (term).
  { stream: 'PORTFOLIO', durable: 'scan-priority', filterSubject: 'portfolio.scan.priority', ackWaitMs: 60_000, maxDeliver: 5, maxAckPending: 10_000 },
  { stream: 'PORTFOLIO', durable: 'scan-rescan', filterSubject: 'portfolio.scan.rescan', ackWaitMs: 60_000, maxDeliver: 5, maxAckPending: 10_000 },
];

export interface KvBucketDef {
  bucket: string;
  ttlMs: number;
  history: number;
}

export const KV_BUCKETS: readonly KvBucketDef[] = [
  // Scheduler load figures, written every second, read by every gateway for 202s and /v1/status.
  { bucket: 'LOAD', ttlMs: 60_000, history: 1 },
];
