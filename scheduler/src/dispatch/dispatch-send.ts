// Sending one batch as a probe session over NATS request/reply to the node chosen for it
// (dispatch.ts), and settling what the session did not answer: a node that times out, has no
// responders, is busy or goes silent makes the batch go elsewhere (nothing is counted as an
// attempt then); a reply goes to dispatch-settle.ts. Apart because it owns the node's counts while
// a session is in flight and the watch on nodes that leave.
import { randomUUID } from 'node:crypto';
import { SUBJECTS, probeSessionReply, type ProbeSessionReply, type ProbeSessionRequest } from '@dv/contracts';
import { REQUEST_ID_HEADER, requestIdHeaders } from '@dv/runtime';
import type { DomainQueue } from '../live/batcher.ts';
import { probesCatchAll } from './harvest-cut.ts';
import type { SessionSettler } from './dispatch-settle.ts';
import type { DispatcherDeps } from './dispatch-types.ts';
import type { Candidate } from '../fleet/fleet.ts';
import type { LiveItem } from '../live/live-types.ts';

/** A node that answered `busy` is passed over this long (a node gone or silent: the fleet's goneMs). */
const BUSY_SUSPECT_MS = 1_000;

export class SessionSender {
  sessionsInFlight = 0;
  private readonly d: DispatcherDeps;
  private readonly settler: SessionSettler;
  /** A session's politeness slot was given back (batches waiting at that provider's gate look again). */
  private readonly onSlotFreed: (provider: string) => void;
  private readonly goneWatch = new Map<string, Set<(err: Error) => void>>();

  constructor(deps: DispatcherDeps, settler: SessionSettler, onSlotFreed: (provider: string) => void) {
    this.d = deps;
    this.settler = settler;
    this.onSlotFreed = onSlotFreed;
    deps.fleet.onGone((id) => {
      for (const reject of this.goneWatch.get(id) ?? []) reject(new Error('probe node gone'));
    });
  }

  async send(q: DomainQueue<LiveItem>, values: LiveItem[], c: Candidate, leaseId: string): Promise<void> {
    // Counted on the node before the first await: the caller saw a free session there, and other
    // queues must not take the same one meanwhile (the node would answer `busy`).
    this.sessionsInFlight++;
    c.node.assigned++;
    const batch = { domain: q.domain, preferIp: q.preferIp, values };
    const { provider, dns } = values[0]!;
    const cfg = this.d.config;
    const addresses = [...new Set(values.map((v) => v.h.syntax!.address))];
    const req: ProbeSessionRequest = {
      session_id: randomUUID(),
      domain: batch.domain,
      mx_hosts: [...dns.mx],
      addresses,
      catch_all_probe: probesCatchAll(batch.domain, provider),
      mail_from: cfg.PROBE_MAIL_FROM,
      source_ip: c.sourceIp,
      timeouts: { sessionMs: cfg.PROBE_SESSION_TIMEOUT_MS },
      // Never throws (the counts above are given back in the finally below only).
      error_budget: await this.d.errorBudget(provider.id).catch(() => null),
    };
    const startedAt = new Date();
    for (const v of batch.values) this.d.metrics.dispatchLatency.observe({ priority: v.h.priority }, (startedAt.getTime() - v.h.receivedAtMs) / 1000);
    let reply: ProbeSessionReply | null = null;
    let failure = '';
    try {
      reply = await this.request(c.node.id, req, cfg.PROBE_SESSION_TIMEOUT_MS + cfg.PROBE_REQUEST_MARGIN_MS, values.map((v) => v.h.requestId));
    } catch (err) {
      failure = (err as Error).message;
    } finally {
      c.node.assigned--;
      this.sessionsInFlight--;
      setTimeout(() => {
        void this.d.politeness
          .release(provider.id, c.ipKey, leaseId)
          .catch(() => undefined)
          .finally(() => this.onSlotFreed(provider.id));
      }, cfg.SLOT_RELEASE_DELAY_MS).unref();
    }
    if (!reply || reply.outcome === 'busy') {
      const reason = !reply ? (/gone/.test(failure) ? 'node_gone' : /503|no responders/i.test(failure) ? 'no_responders' : 'timeout') : 'busy';
      this.d.fleet.markSuspect(c.node.id, reason === 'busy' ? BUSY_SUSPECT_MS : this.d.fleet.goneMs);
      this.d.metrics.redispatches.inc({ reason });
      this.d.log.warn({ node: c.node.id, reason, domain: batch.domain, items: batch.values.length, request_id: requestIdsOf(values) }, 'probe session lost; sending the batch elsewhere');
      const now = new Date();
      for (const v of batch.values) {
        v.h.redispatches++;
        if (reason !== 'busy' && this.settler.lost(v, now)) continue;
        this.d.requeue(v, batch.preferIp);
      }
      return;
    }
    this.d.metrics.sessions.inc({ outcome: reply.outcome });
    this.d.log.debug({ request_id: requestIdsOf(values), domain: batch.domain, items: values.length, node: c.node.id, outcome: reply.outcome, waitedMs: startedAt.getTime() - Math.min(...values.map((v) => v.h.receivedAtMs)), sessionMs: Date.now() - startedAt.getTime() }, 'probe session');
    await this.settler.settle(batch, c, reply, startedAt);
  }

  /** `requestIds`: the HTTP requests whose items this session probes, sent along so the probe node's log lines name them. */
  private async request(nodeId: string, req: ProbeSessionRequest, timeoutMs: number, requestIds: ReadonlyArray<string | undefined> = []): Promise<ProbeSessionReply> {
    let onGone: ((err: Error) => void) | undefined;
    const gone = new Promise<never>((_, reject) => {
      onGone = reject;
      const set = this.goneWatch.get(nodeId) ?? new Set();
      set.add(reject);
      this.goneWatch.set(nodeId, set);
    });
    try {
      const headers = requestIdHeaders(requestIds);
      const startedMs = Date.now();
      const msg = await Promise.race([this.d.nc.request(SUBJECTS.probeSession(nodeId), JSON.stringify(req), { timeout: timeoutMs, ...(headers ? { headers } : {}) }), gone]);
      const reply = probeSessionReply.parse(msg.json());
      this.d.fleet.recordPace(nodeId, Date.now() - startedMs, req.addresses.length + (req.catch_all_probe ? 1 : 0));
      return reply;
    } finally {
      const set = this.goneWatch.get(nodeId);
      if (onGone) set?.delete(onGone);
      if (set?.size === 0) this.goneWatch.delete(nodeId);
      gone.catch(() => undefined);
    }
  }
}

/** The distinct request ids of a session's items, for its log lines (undefined when none came with one). */
function requestIdsOf(values: ReadonlyArray<{ h: { requestId?: string } }>): string | undefined {
  return requestIdHeaders(values.map((v) => v.h.requestId))?.get(REQUEST_ID_HEADER);
}
