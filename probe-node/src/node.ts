// The probe node as a NATS service: request/reply on `probe.<nodeId>.session` (one SMTP session
// per request), capacity with an immediate `busy` beyond it, heartbeats on `probe.heartbeat`,
// metrics, and a bounded drain on shutdown.
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Registry } from 'prom-client';
import { SUBJECTS, probeSessionRequest, type ProbeHeartbeat, type ProbeSessionReply } from '@dv/contracts';
import { requestIdOf, withRequestId, type Logger } from '@dv/runtime';
import { classifyReply, providerForMx } from '@dv/verdict';
import type { ProbeConfig } from './config.ts';
import { PROBE_DEFAULTS } from './defaults.ts';
import { ProviderHealth } from './health.ts';
import { createProbeMetrics, providerLabel, type ProbeMetrics } from './metrics.ts';
import { ConnectionPool } from './pool.ts';
import { createResolver, type HostResolver } from './resolve.ts';
import { runSession, type SessionRun } from './session.ts';

export interface ProbeNodeOptions {
  nc: NatsConnection;
  config: ProbeConfig;
  nodeId: string;
  log: Logger;
  registry: Registry;
  resolver?: HostResolver;
}

export class ProbeNode {
  readonly nodeId: string;
  private readonly nc: NatsConnection;
  private readonly config: ProbeConfig;
  private readonly log: Logger;
  private readonly metrics: ProbeMetrics;
  private readonly resolver: HostResolver;
  private readonly health: ProviderHealth;
  private readonly pool: ConnectionPool;
  // Aborted when the drain budget runs out: sessions still running end at once with `timeout`.
  private readonly cut = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private sub: Subscription | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private draining = false;

  constructor(opts: ProbeNodeOptions) {
    this.nodeId = opts.nodeId;
    this.nc = opts.nc;
    this.config = opts.config;
    this.log = opts.log;
    this.metrics = createProbeMetrics(opts.registry);
    this.resolver = opts.resolver ?? createResolver({ servers: opts.config.DNS_SERVERS, timeoutMs: opts.config.PROBE_DNS_TIMEOUT_MS });
    this.health = new ProviderHealth(opts.config.PROBE_HEALTH_WINDOW_MS, PROBE_DEFAULTS.healthMaxProviders);
    const c = opts.config;
    this.pool = new ConnectionPool({ idleMs: c.PROBE_IDLE_CONNECTION_MS, maxIdle: c.PROBE_MAX_IDLE_CONNECTIONS, maxTransactions: c.PROBE_MAX_TRANSACTIONS_PER_CONNECTION, quitTimeoutMs: PROBE_DEFAULTS.quitTimeoutMs });
  }

  get inFlight(): number {
    return this.running.size;
  }

  get subject(): string {
    return SUBJECTS.probeSession(this.nodeId);
  }

  /** Subscribes (no queue group: the subject is this node's own) and starts heartbeats. */
  start(): void {
    this.sub = this.nc.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err }, 'probe subscription error');
          return;
        }
        try {
          // The session's log lines name the HTTP request(s) its addresses came from (X-Request-Id).
          withRequestId(requestIdOf(msg.headers), () => this.onRequest(msg));
        } catch (e) {
          // A bug must cost one request, never the node.
          this.log.error({ err: e }, 'probe request handling failed');
        }
      },
    });
    this.heartbeat();
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.config.PROBE_HEARTBEAT_INTERVAL_MS);
    this.heartbeatTimer.unref();
  }

  /**
   * Stops taking requests (anything still queued gets `busy`), lets sessions in flight finish
   * within `drainTimeoutMs`, then cuts the rest; each of them still gets its reply.
   */
  async stop(drainTimeoutMs: number = this.config.PROBE_DRAIN_TIMEOUT_MS): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.heartbeat();
    await this.sub?.drain().catch(() => undefined);
    const all = Promise.all([...this.running]);
    const timer = { id: undefined as NodeJS.Timeout | undefined };
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => (timer.id = setTimeout(() => r(true), drainTimeoutMs)))]);
    clearTimeout(timer.id);
    if (timedOut) {
      this.log.warn({ inFlight: this.inFlight }, 'drain budget spent; cutting the sessions still running');
      this.cut.abort(new Error('probe node shutting down'));
      await all;
    }
    // No session left to reuse them: every kept connection gets its QUIT.
    await this.pool.closeAll();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.heartbeat();
    await this.nc.flush().catch(() => undefined);
  }

  private onRequest(msg: Msg): void {
    if (!msg.reply) {
      this.log.warn({ subject: msg.subject }, 'probe request without a reply subject; ignored');
      return;
    }
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      body = undefined;
    }
    const sessionId = typeof (body as { session_id?: unknown })?.session_id === 'string' ? (body as { session_id: string }).session_id : '';
    const parsed = probeSessionRequest.safeParse(body);
    const provider = parsed.success ? providerForMx(parsed.data.mx_hosts[0]!) : null;
    if (this.draining || this.inFlight >= this.config.PROBE_MAX_CONCURRENT_SESSIONS) {
      this.metrics.sessions.inc({ provider: provider ? providerLabel(provider) : 'unknown', outcome: 'busy' });
      this.respond(msg, this.immediate(sessionId, 'busy', this.draining ? 'node is shutting down' : `node at capacity (${this.config.PROBE_MAX_CONCURRENT_SESSIONS} sessions)`));
      return;
    }
    if (!parsed.success) {
      this.metrics.sessions.inc({ provider: 'unknown', outcome: 'protocol_error' });
      const detail = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      this.respond(msg, this.immediate(sessionId, 'protocol_error', `invalid request: ${detail}`));
      return;
    }
    const req = parsed.data;
    const task = runSession(req, { config: this.config, nodeId: this.nodeId, resolver: this.resolver, signal: this.cut.signal, pool: this.draining ? undefined : this.pool })
      .then((run) => {
        this.account(run);
        this.respond(msg, run.reply);
        this.log.debug({ session_id: req.session_id, domain: req.domain, outcome: run.reply.outcome, ms: run.reply.duration_ms }, 'probe session done');
      })
      .catch((err: unknown) => {
        // runSession turns every failure into a reply; this is a last line of defence.
        this.log.error({ err, session_id: req.session_id }, 'probe session failed unexpectedly');
        this.respond(msg, this.immediate(req.session_id, 'protocol_error', 'internal error'));
      })
      .finally(() => {
        this.running.delete(task);
        this.metrics.inFlight.set(this.running.size);
      });
    this.running.add(task);
    this.metrics.inFlight.set(this.running.size);
  }

  private account(run: SessionRun): void {
    const { reply } = run;
    const row = providerForMx(reply.mx_used ?? reply.connect_errors?.[0]?.host ?? 'unknown.invalid');
    const provider = providerLabel(row);
    this.metrics.sessions.inc({ provider, outcome: reply.outcome });
    this.metrics.sessionDuration.observe({ outcome: reply.outcome }, reply.duration_ms / 1000);
    this.metrics.connections.inc({ provider }, reply.connections ?? 0);
    for (const { stage, reply: r } of run.observed) {
      const { class: cls, rule } = classifyReply(r);
      this.metrics.replies.inc({ provider, class: cls, stage });
      // A harvest defence's "too many errors" (reply row too-many-errors) is about the errors this
      // connection drew, not about our IP's pace: it must not steer the provider's work elsewhere.
      if (cls === 'throttled' && rule !== 'too-many-errors') this.health.record(row.id, 'throttled');
      else if (cls === 'policy_blocked') this.health.record(row.id, 'blocked');
    }
  }

  private immediate(sessionId: string, outcome: ProbeSessionReply['outcome'], detail: string): ProbeSessionReply {
    return { session_id: sessionId, node_id: this.nodeId, outcome, mx_used: null, source_ip: null, tls: false, catch_all: null, results: [], duration_ms: 0, detail, connections: 0 };
  }

  private respond(msg: Msg, reply: ProbeSessionReply): void {
    try {
      msg.respond(JSON.stringify(reply));
    } catch (err) {
      // The connection may be closing; the requester then times out and retries elsewhere.
      this.log.warn({ err, session_id: reply.session_id }, 'could not send the probe reply');
    }
  }

  private heartbeat(): void {
    const beat: ProbeHeartbeat = {
      node_id: this.nodeId,
      source_ips: [...this.config.PROBE_SOURCE_IPS],
      capacity: this.draining ? 0 : this.config.PROBE_MAX_CONCURRENT_SESSIONS,
      in_flight: this.inFlight,
      provider_health: this.health.snapshot(),
      at: new Date().toISOString(),
      window_ms: this.config.PROBE_HEALTH_WINDOW_MS,
      ...(this.draining ? { draining: true } : {}),
    };
    try {
      this.nc.publish(SUBJECTS.probeHeartbeat, JSON.stringify(beat));
    } catch (err) {
      this.log.warn({ err }, 'could not publish the heartbeat');
    }
  }
}
