import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstreamManager, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { natsInboxPrefix, type ConsumerDef, type KvBucketDef, type StreamDef } from '@dv/contracts';
import { within, type Dependency } from './dependency.ts';
import type { Logger } from './logger.ts';

export interface NatsDependency extends Dependency {
  readonly nc: NatsConnection;
}

/** A bus user (NATS_USER) and its password (NATS_PASSWORD_FILE). */
export interface NatsAuth {
  user: string;
  password: string;
}

/**
 * Connects with unlimited reconnects: after a nats-server restart the client comes back on its own
 * and JetStream consumers resume. Readiness follows the connection's status events.
 */
export async function connectNats(url: string, name: string, log: Logger, auth?: NatsAuth, hooks: { onPermissionViolation?: () => void } = {}): Promise<NatsDependency> {
  // With a user, replies come to `_INBOX.<user>.…`, the only inboxes that user may subscribe to.
  const credentials = auth ? { user: auth.user, pass: auth.password, inboxPrefix: natsInboxPrefix(auth.user) } : {};
  // noAsyncTraces: otherwise every request and JetStream publish builds two Error objects up front
  // (a stack trace each, in case it fails): measured at ~55 us of CPU per publish, a fifth of a
  // 25,000-item job's acceptance. Errors keep their messages; only the caller's stack is lost.
  const nc = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true, pingInterval: 5_000, maxPingOut: 2, noAsyncTraces: true, ...credentials });
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'staleConnection') {
        if (connected) log.warn({ dependency: 'nats' }, 'nats disconnected');
        connected = false;
      } else if (status.type === 'reconnect') {
        connected = true;
        log.info({ dependency: 'nats' }, 'nats reconnected');
      } else if (status.type === 'error') {
        // A permission violation names the subject this service's bus user may not use (NATS_ROLES).
        log.error({ dependency: 'nats', err: status.error.message }, 'nats server error');
        if (/permissions violation/i.test(status.error.message)) hooks.onPermissionViolation?.();
      }
    }
  })();
  return {
    name: 'nats',
    nc,
    isReady: async () => connected && !nc.isClosed() && (await within(nc.flush().then(() => true), 1_000, false)),
    close: async () => {
      if (!nc.isClosed()) await within(nc.drain(), 3_000, undefined);
    },
  };
}

/** How many replicas the declared streams and buckets get (NATS_STREAM_REPLICAS), and where to say so. */
export interface ReplicaOptions {
  /** Overrides each StreamDef's `replicas` (and the KV buckets' 1). */
  replicas?: number;
  log?: Logger;
}

/**
 * The server refused the configured replica count for a reason waiting cannot change: a
 * non-clustered nats-server holds one replica only. The service stops at start with this message.
 */
export class StreamReplicasError extends Error {
  constructor(stream: string, replicas: number, cause: Error) {
    super(`stream ${stream}: NATS_STREAM_REPLICAS=${replicas} refused by the NATS server (${cause.message}); a single server (no cluster) holds 1 replica: set NATS_STREAM_REPLICAS=1, or run a cluster of at least ${replicas} servers`);
    this.name = 'StreamReplicasError';
  }
}

/**
 * The replica count to apply to an existing stream. Raised to the configured count (nats-server
 * 2.9 moves a clustered stream to more replicas by a stream update), never lowered: one service
 * started without NATS_STREAM_REPLICAS must not shrink production's R3 streams to R1 (and lose their redundancy);
 * lowering is an operator's `nats stream edit --replicas`.
 */
export function replicasFor(name: string, have: number, want: number, log: Logger | undefined): number {
  if (want > have) log?.warn({ stream: name, from: have, to: want }, 'raising the stream\'s replicas to NATS_STREAM_REPLICAS');
  else if (want < have) log?.warn({ stream: name, replicas: have, configured: want }, 'stream has more replicas than NATS_STREAM_REPLICAS; kept (lower it by hand if meant)');
  return Math.max(have, want);
}

/**
 * A stream on a non-clustered server has no `cluster` in its info; nats-server 2.9 refuses to
 * create an R3 stream there (10074) but accepts an update to R3 and merely records it, so an
 * existing stream is checked here before the update.
 */
function refuseUnclustered(stream: string, info: StreamInfo, replicas: number): void {
  if (replicas > 1 && !info.cluster) throw new StreamReplicasError(stream, replicas, new Error('the server is not clustered'));
}

/** Runs a stream create/update, turning "replicas not supported here" into a StreamReplicasError. */
async function applying<T>(stream: string, replicas: number, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // nats-server: JSStreamReplicasNotSupportedErr, err_code 10074, "replicas > 1 not supported in non-clustered mode".
    if (replicas > 1 && /not supported in non-clustered mode|10074/.test((err as Error).message)) throw new StreamReplicasError(stream, replicas, err as Error);
    throw err;
  }
}

/**
 * Creates each stream, or updates it to the declared config: safe to run at every start. The
 * replica count comes from `opts.replicas` (NATS_STREAM_REPLICAS) and is never lowered on an
 * existing stream (replicasFor).
 */
export async function ensureStreams(jsm: JetStreamManager, streams: readonly StreamDef[], consumers: readonly ConsumerDef[], opts: ReplicaOptions = {}): Promise<void> {
  for (const def of streams) {
    const want = opts.replicas ?? def.replicas;
    const config = {
      name: def.name,
      subjects: def.subjects,
      retention: def.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(def.maxAgeMs),
      num_replicas: want,
      duplicate_window: nanos(def.duplicateWindowMs),
    };
    const info = await jsm.streams.info(def.name).catch(() => null);
    if (info) {
      const replicas = replicasFor(def.name, info.config.num_replicas, want, opts.log);
      refuseUnclustered(def.name, info, replicas);
      await applying(def.name, replicas, () => jsm.streams.update(def.name, { ...config, num_replicas: replicas }));
    } else await applying(def.name, want, () => jsm.streams.add(config));
  }
  for (const def of consumers) {
    const config = {
      durable_name: def.durable,
      filter_subject: def.filterSubject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(def.ackWaitMs),
      max_deliver: def.maxDeliver,
      max_ack_pending: def.maxAckPending,
    };
    const exists = await jsm.consumers.info(def.stream, def.durable).then(() => true, () => false);
    if (exists) await jsm.consumers.update(def.stream, def.durable, config);
    else await jsm.consumers.add(def.stream, config);
  }
}

/** Creates each bucket with `opts.replicas` replicas (default 1); an existing bucket's stream gets the same rule as ensureStreams (raised, never lowered). */
export async function ensureKvBuckets(nc: NatsConnection, buckets: readonly KvBucketDef[], opts: ReplicaOptions = {}): Promise<void> {
  const kvm = new Kvm(nc);
  const jsm = await jetstreamManager(nc);
  const want = opts.replicas ?? 1;
  for (const def of buckets) {
    const stream = `KV_${def.bucket}`;
    const info = await jsm.streams.info(stream).catch(() => null);
    if (!info) {
      await applying(stream, want, () => kvm.create(def.bucket, { ttl: def.ttlMs, history: def.history, replicas: want }));
      continue;
    }
    const replicas = replicasFor(stream, info.config.num_replicas, want, opts.log);
    refuseUnclustered(stream, info, replicas);
    if (replicas !== info.config.num_replicas) await applying(stream, replicas, () => jsm.streams.update(stream, { num_replicas: replicas }));
  }
}

export async function natsManager(nc: NatsConnection): Promise<JetStreamManager> {
  return jetstreamManager(nc);
}
