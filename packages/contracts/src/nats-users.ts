// Who may do what on the bus (least privilege): one NATS user per service, with the subjects it may
// publish and subscribe to. nats-server denies everything a user's lists do not name, so a pod that
// holds the probe nodes' password cannot request probe sessions, and a gateway cannot publish
// heartbeats. The local launcher (packages/stack/src/nats-auth.ts) and the k8s manifests
// (k8s/base/nats-auth.conf, generated from this table) render the same permissions, and
// runService ensures only the streams and buckets its user may manage.
import { CONSUMERS, KV_BUCKETS, STREAMS, SUBJECTS } from './subjects.ts';

export const NATS_USERS = ['gateway', 'scheduler', 'probe-node', 'portfolio-scanner'] as const;
export type NatsUser = (typeof NATS_USERS)[number];

export interface NatsRole {
  /** Streams this user creates or updates at start (with their durable consumers). */
  streams: readonly string[];
  /** KV buckets this user creates at start, reads and watches. */
  buckets: readonly string[];
  /** Of those, the ones it also writes (a reader cannot forge what the writer publishes). */
  writes?: readonly string[];
  /** Durable pull consumers this user fetches from and acks: `STREAM/durable`. */
  pulls: readonly string[];
  /** Plain subjects (and JetStream subjects it publishes to) beyond the stream and bucket ones. */
  publish: readonly string[];
  subscribe: readonly string[];
  /**
   * May answer requests it received (one reply each, within `expiresS` of the request), without a
   * publish right on anyone's inbox.
   */
  allowResponses?: { expiresS: number };
}

const durables = (stream: string): string[] => CONSUMERS.filter((c) => c.stream === stream).map((c) => `${stream}/${c.durable}`);

/** The table. Only schedulers request probe sessions; only probe nodes publish heartbeats. */
export const NATS_ROLES: Readonly<Record<NatsUser, NatsRole>> = {
  gateway: {
    streams: ['VERIFY'],
    // Reads the schedulers' load figures; only schedulers write them.
    buckets: ['LOAD'],
    pulls: [],
    publish: ['verify.item.>'],
    subscribe: [SUBJECTS.verifyDoneAll],
  },
  scheduler: {
    streams: ['VERIFY'],
    buckets: ['LOAD'],
    writes: ['LOAD'],
    pulls: durables('VERIFY'),
    // verify.item.>: the deadline and retry sweeps put items back on the stream.
    publish: ['verify.item.>', SUBJECTS.verifyDoneAll, SUBJECTS.probeSession('*')],
    subscribe: [SUBJECTS.probeHeartbeat],
  },
  'probe-node': {
    streams: [],
    buckets: [],
    pulls: [],
    publish: [SUBJECTS.probeHeartbeat],
    subscribe: [SUBJECTS.probeSession('*')],
    // A session's reply may come as late as the probe node's longest session (PROBE_MAX_SESSION_TIMEOUT_MS,
    // 180 s) plus its QUIT: a reply after the permission expired would be refused and the session lost.
    allowResponses: { expiresS: 300 },
  },
  'portfolio-scanner': {
    streams: ['PORTFOLIO'],
    buckets: [],
    pulls: durables('PORTFOLIO'),
    // MSG.GET: queue lag (the oldest message of a subject) and the planner's lost-message check.
    publish: ['portfolio.scan.>', '$JS.API.STREAM.MSG.GET.PORTFOLIO'],
    subscribe: [],
  },
};

/** The inbox prefix of a user's connection: replies to it can be read by that user only. */
export function natsInboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /** Seconds a received request may still be answered; undefined: no replies without a publish right. */
  responseExpiresS?: number;
}

/** The subjects a role may publish to and subscribe to, JetStream API subjects included. */
export function natsPermissions(user: NatsUser): NatsPermissions {
  const role = NATS_ROLES[user];
  const publish: string[] = [];
  const subscribe: string[] = [`${natsInboxPrefix(user)}.>`];
  const usesJetStream = role.streams.length + role.buckets.length + role.pulls.length > 0;
  // jetstreamManager() checks the account first.
  if (usesJetStream) publish.push('$JS.API.INFO');
  const manage = (stream: string) => {
    publish.push(`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`);
    publish.push(`$JS.API.CONSUMER.INFO.${stream}.*`, `$JS.API.CONSUMER.CREATE.${stream}.>`, `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`);
  };
  for (const stream of role.streams) {
    if (!STREAMS.some((s) => s.name === stream)) throw new Error(`NATS_ROLES.${user}: unknown stream ${stream}`);
    manage(stream);
  }
  for (const bucket of role.buckets) {
    if (!KV_BUCKETS.some((b) => b.bucket === bucket)) throw new Error(`NATS_ROLES.${user}: unknown bucket ${bucket}`);
    const stream = `KV_${bucket}`;
    manage(stream);
    // Get (direct or by the stream API) and watch (an ordered consumer with flow control); put only for writers.
    publish.push(`$JS.API.DIRECT.GET.${stream}.>`, `$JS.API.STREAM.MSG.GET.${stream}`, `$JS.API.CONSUMER.DELETE.${stream}.>`, `$JS.FC.${stream}.>`);
    if (role.writes?.includes(bucket)) publish.push(`$KV.${bucket}.>`);
  }
  for (const pull of role.pulls) {
    const [stream, durable] = pull.split('/');
    if (!CONSUMERS.some((c) => c.stream === stream && c.durable === durable)) throw new Error(`NATS_ROLES.${user}: unknown consumer ${pull}`);
    publish.push(`$JS.API.CONSUMER.INFO.${stream}.${durable}`, `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, `$JS.ACK.${stream}.${durable}.>`);
  }
  publish.push(...role.publish);
  subscribe.push(...role.subscribe);
  return { publish: [...new Set(publish)], subscribe: [...new Set(subscribe)], ...(role.allowResponses ? { responseExpiresS: role.allowResponses.expiresS } : {}) };
}
