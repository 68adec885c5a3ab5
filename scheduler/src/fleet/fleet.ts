// The probe fleet as this replica sees it: built from `probe.heartbeat`, a node silent for
// PROBE_NODE_GONE_MS is gone. Choosing a node is a pure ranking (rankCandidates) over free
// capacity and the node's recent per-provider health.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { SUBJECTS, probeHeartbeat } from '@dv/contracts';
import type { Logger } from '@dv/runtime';
import { SCHEDULER_DEFAULTS } from '../defaults.ts';

const SLOW_NODE_FACTOR = SCHEDULER_DEFAULTS.slowNodeFactor;
const PACE_WEIGHT = SCHEDULER_DEFAULTS.nodePaceWeight;

export interface NodeState {
  id: string;
  sourceIps: string[];
  capacity: number;
  /** In flight as the node last reported it. */
  reportedInFlight: number;
  /** Requests this replica has open on the node right now. */
  assigned: number;
  providerHealth: Record<string, { throttled: number; blocked: number }>;
  lastSeenMs: number;
  draining: boolean;
  /** After a timeout / no-responders the node is avoided until then (it may be dying). */
  suspectUntilMs: number;
  /**
   * This replica's moving average of the node's answered sessions, in ms per address probed: a node
   * on a slow link (or a loaded one) shows here. Absent until its first answered session.
   */
  paceMsPerAddress?: number;
}

/** One place a session can come from: a node and one of its source IPs (null: the node has none configured). */
export interface Candidate {
  node: NodeState;
  sourceIp: string | null;
  /** Politeness key part for the IP: the IP itself, or `node:<id>` when the OS chooses. */
  ipKey: string;
}

export function ipKeyOf(nodeId: string, ip: string | null): string {
  return ip ?? `node:${nodeId}`;
}

/**
 * Candidates in preference order for a provider: nodes with free capacity, not suspect; fewer
 * recent policy blocks, then fewer throttles for this provider, then the IP the MX host's last
 * session came from (`lastIpKey`: that node may keep its connection open for the next session,
 * docs/probe-node.md "Connection reuse"), then more free capacity. A node whose sessions take more
 * than SLOW_NODE_FACTOR times the fastest usable node's time per address ranks after the others
 * just below the health terms: a slow link costs the MX hosts longer sessions and the list its
 * time, so the faster nodes are asked first and the slow one carries what they cannot. A preferred source IP (greylist
 * retries: the same /24 as the first try) comes first when usable.
 */
export function rankCandidates(nodes: readonly NodeState[], providerId: string, nowMs: number, preferIp: string | null = null, lastIpKey: string | null = null): Candidate[] {
  const usable = nodes.filter((n) => !n.draining && n.capacity > 0 && n.suspectUntilMs <= nowMs && free(n) > 0);
  const health = (n: NodeState) => n.providerHealth[providerId] ?? { throttled: 0, blocked: 0 };
  const paces = usable.flatMap((n) => (n.paceMsPerAddress === undefined ? [] : [n.paceMsPerAddress]));
  const fastest = paces.length > 0 ? Math.min(...paces) : undefined;
  const slow = (n: NodeState) => (fastest !== undefined && n.paceMsPerAddress !== undefined && n.paceMsPerAddress > SLOW_NODE_FACTOR * fastest ? 1 : 0);
  const keeps = (n: NodeState) => (lastIpKey !== null && (n.sourceIps.length > 0 ? n.sourceIps : [null]).some((ip) => ipKeyOf(n.id, ip) === lastIpKey) ? 0 : 1);
  usable.sort((a, b) => health(a).blocked - health(b).blocked || health(a).throttled - health(b).throttled || slow(a) - slow(b) || keeps(a) - keeps(b) || free(b) - free(a) || a.id.localeCompare(b.id));
  const out: Candidate[] = [];
  for (const node of usable) {
    const ips = node.sourceIps.length > 0 ? node.sourceIps : [null];
    for (const ip of ips) out.push({ node, sourceIp: ip, ipKey: ipKeyOf(node.id, ip) });
  }
  if (lastIpKey) {
    // Within its node too: the connection is kept per source IP.
    const i = out.findIndex((c) => c.ipKey === lastIpKey);
    if (i > 0 && out[0]!.node === out[i]!.node) out.unshift(...out.splice(i, 1));
  }
  if (preferIp) {
    const i = out.findIndex((c) => c.sourceIp === preferIp);
    if (i > 0) out.unshift(...out.splice(i, 1));
  }
  return out;
}

/**
 * How much longer a batch of `addresses` that has waited `waitedMs` at the gates should keep waiting
 * for a faster node than go out through `node` now (0: take it). `fasterPaceMs`: the best pace of
 * the nodes that turned the batch away for a moment only (concurrency or rate, not a block), if
 * any. A node past SLOW_NODE_FACTOR of it would take `(its pace - faster pace) x addresses` longer
 * over the session, holding the MX host's connection that much longer: the batch waits for a faster
 * node up to that, then takes the slow one. So under a backlog that the faster nodes cannot carry
 * alone, batches overflow to the slow node after waiting about what it would cost them, and its
 * source addresses still add their politeness allowance; with room on the faster nodes, it carries
 * almost nothing.
 */
export function holdForFaster(node: NodeState, fasterPaceMs: number | undefined, addresses: number, waitedMs: number): number {
  const pace = node.paceMsPerAddress;
  if (fasterPaceMs === undefined || pace === undefined || pace <= SLOW_NODE_FACTOR * fasterPaceMs) return 0;
  return Math.max(0, (pace - fasterPaceMs) * addresses - waitedMs);
}

export function free(n: NodeState): number {
  return n.capacity - Math.max(n.reportedInFlight, n.assigned);
}

export class Fleet {
  private readonly nodes = new Map<string, NodeState>();
  private sub: Subscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly goneListeners: Array<(id: string) => void> = [];
  /** IP keys whose node said it cannot get out from them (node_fault egress), until when: this replica's own knowledge. */
  private readonly egressFaults = new Map<string, number>();
  private readonly nc: NatsConnection;
  private readonly log: Logger;
  readonly goneMs: number;

  constructor(opts: { nc: NatsConnection; log: Logger; goneMs: number }) {
    this.nc = opts.nc;
    this.log = opts.log;
    this.goneMs = opts.goneMs;
  }

  start(): void {
    this.sub = this.nc.subscribe(SUBJECTS.probeHeartbeat, {
      callback: (err, msg) => {
        if (err) return;
        try {
          this.onBeat(msg.json());
        } catch {
          // not JSON: ignored like any malformed heartbeat
        }
      },
    });
    this.timer = setInterval(() => this.expire(), Math.max(100, Math.floor(this.goneMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    this.sub?.unsubscribe();
    if (this.timer) clearInterval(this.timer);
  }

  onGone(listener: (id: string) => void): void {
    this.goneListeners.push(listener);
  }

  private onBeat(body: unknown): void {
    const parsed = probeHeartbeat.safeParse(body);
    if (!parsed.success) return;
    const b = parsed.data;
    const prev = this.nodes.get(b.node_id);
    if (!prev) this.log.info({ node: b.node_id, sourceIps: b.source_ips, capacity: b.capacity }, 'probe node joined');
    const fresh = { sourceIps: b.source_ips, capacity: b.capacity, reportedInFlight: b.in_flight, providerHealth: b.provider_health, lastSeenMs: Date.now(), draining: b.draining ?? false };
    // Updated in place: sessions in flight hold this object and count `assigned` down on it.
    if (prev) Object.assign(prev, fresh);
    else this.nodes.set(b.node_id, { id: b.node_id, assigned: 0, suspectUntilMs: 0, ...fresh });
  }

  private expire(): void {
    const now = Date.now();
    for (const [id, n] of this.nodes) {
      if (now - n.lastSeenMs > this.goneMs) {
        this.nodes.delete(id);
        this.log.warn({ node: id }, 'probe node gone (no heartbeat)');
        for (const l of this.goneListeners) l(id);
      }
    }
  }

  /** Records an answered session's time per address on the node (moving average, PACE_WEIGHT per session). */
  recordPace(id: string, elapsedMs: number, addresses: number): void {
    const n = this.nodes.get(id);
    if (!n || addresses <= 0) return;
    const pace = elapsedMs / addresses;
    n.paceMsPerAddress = n.paceMsPerAddress === undefined ? pace : n.paceMsPerAddress + PACE_WEIGHT * (pace - n.paceMsPerAddress);
  }

  alive(): NodeState[] {
    const now = Date.now();
    return [...this.nodes.values()].filter((n) => now - n.lastSeenMs <= this.goneMs);
  }

  isAlive(id: string): boolean {
    const n = this.nodes.get(id);
    return !!n && Date.now() - n.lastSeenMs <= this.goneMs;
  }

  get(id: string): NodeState | undefined {
    return this.nodes.get(id);
  }

  markSuspect(id: string, forMs: number): void {
    const n = this.nodes.get(id);
    if (n) n.suspectUntilMs = Date.now() + forMs;
  }

  /** No session goes out from this IP key for a while: its node reported that it cannot get out from it. */
  markEgressFault(ipKey: string, forMs: number): void {
    this.egressFaults.set(ipKey, Date.now() + forMs);
  }

  ipUsable(ipKey: string, nowMs: number = Date.now()): boolean {
    const until = this.egressFaults.get(ipKey);
    if (until === undefined) return true;
    if (until > nowMs) return false;
    this.egressFaults.delete(ipKey);
    return true;
  }

  /**
   * IP keys that may still reach a host (docs/scheduler.md "MX health"): of nodes alive (a
   * heartbeat within PROBE_NODE_GONE_MS), without an egress fault. Busy, suspect and draining
   * nodes count: they may answer again soon (a draining one is usually restarting), and an item
   * waits for them rather than ending unknown; a node that does not come back is gone after
   * PROBE_NODE_GONE_MS and no longer counts.
   */
  usableIpKeys(nowMs: number = Date.now()): string[] {
    const out: string[] = [];
    for (const n of this.alive()) {
      for (const ip of n.sourceIps.length > 0 ? n.sourceIps : [null]) {
        const key = ipKeyOf(n.id, ip);
        if (this.ipUsable(key, nowMs)) out.push(key);
      }
    }
    return out;
  }

  /** Probe sessions: total capacity of live nodes and how much of it is in use. */
  capacity(): { total: number; inUse: number } {
    let total = 0;
    let inUse = 0;
    for (const n of this.alive()) {
      if (n.draining) continue;
      total += n.capacity;
      inUse += Math.max(n.reportedInFlight, n.assigned);
    }
    return { total, inUse };
  }
}
