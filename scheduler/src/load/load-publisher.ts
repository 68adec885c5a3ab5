// Gathers the load inputs every LOAD_INTERVAL_MS and writes the figures to the NATS KV bucket
// `LOAD` (key LOAD_KEY) that gateways read. Throughput is counted per second in Redis by every
// replica, so the figure is the whole scheduler's, not one replica's.
import type { Db } from 'mongodb';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import { COLLECTIONS, KV_BUCKETS, loadFigures, type JobItemDoc, type LoadFigures } from '@dv/contracts';
import type { Logger } from '@dv/runtime';
import type { SchedulerConfig } from '../config.ts';
import type { Fleet } from '../fleet/fleet.ts';
import { computeLoad, smoothLoad } from './load.ts';
import type { SchedulerMetrics } from '../metrics.ts';

const WINDOW_S = 10;
const LEVEL_NUMBER = { normal: 0, busy: 1, saturated: 2 } as const;

export interface LoadDeps {
  nc: NatsConnection;
  db: Db;
  redis: Redis;
  config: SchedulerConfig;
  log: Logger;
  metrics: SchedulerMetrics;
  fleet: () => Fleet;
  /** Items held (un-acked) by this replica. */
  inFlight: () => number;
}

export class LoadPublisher {
  private readonly d: LoadDeps;
  private timer: NodeJS.Timeout | null = null;
  private kv: KV | null = null;
  private busy = false;
  last: LoadFigures | null = null;

  constructor(deps: LoadDeps) {
    this.d = deps;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.d.config.LOAD_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Counted per wall-clock second in Redis (shared by replicas), kept two minutes. */
  recordFinished(n: number): void {
    const key = `${this.d.config.REDIS_PREFIX}tp:${Math.floor(Date.now() / 1000)}`;
    void this.d.redis.multi().incrby(key, n).expire(key, 120).exec().catch(() => undefined);
  }

  private async throughput(): Promise<number> {
    const nowS = Math.floor(Date.now() / 1000);
    const keys = Array.from({ length: WINDOW_S }, (_, i) => `${this.d.config.REDIS_PREFIX}tp:${nowS - 1 - i}`);
    const values = await this.d.redis.mget(...keys);
    return values.reduce((sum, v) => sum + Number(v ?? 0), 0) / WINDOW_S;
  }

  private async pending(durable: string): Promise<number> {
    const jsm = await jetstreamManager(this.d.nc);
    const info = await jsm.consumers.info(this.d.config.VERIFY_STREAM, durable);
    return info.num_pending + info.num_ack_pending;
  }

  /** Parked items by the queue they came from, one query on the partial retry_due index (items parked before `priority` was recorded count as list). */
  private async parked(): Promise<{ single: number; list: number }> {
    const groups = await this.d.db
      .collection<JobItemDoc>(COLLECTIONS.jobItems.name)
      .aggregate<{ _id: JobItemDoc['priority'] | null; n: number }>([{ $match: { state: 'waiting_retry' } }, { $group: { _id: '$priority', n: { $sum: 1 } } }])
      .toArray();
    const single = groups.find((g) => g._id === 'single')?.n ?? 0;
    return { single, list: groups.reduce((sum, g) => sum + g.n, 0) - single };
  }

  async compute(): Promise<LoadFigures> {
    const c = this.d.config;
    const [single, list, parked, throughputPerS] = await Promise.all([this.pending(c.SINGLE_CONSUMER), this.pending(c.LIST_CONSUMER), this.parked(), this.throughput()]);
    const cap = this.d.fleet().capacity();
    const figures = computeLoad(
      { queueSingle: single, queueList: list, parkedSingle: parked.single, parkedList: parked.list, throughputPerS, capacityTotal: cap.total, capacityInUse: cap.inUse },
      { busySeconds: c.LOAD_BUSY_SECONDS, saturatedSeconds: c.LOAD_SATURATED_SECONDS, busyCapacity: c.LOAD_BUSY_CAPACITY, saturatedCapacity: c.LOAD_SATURATED_CAPACITY, idleSecondsPerSingle: c.IDLE_SECONDS_PER_SINGLE },
      new Date(),
    );
    return loadFigures.parse(smoothLoad(this.last, figures, c.THROUGHPUT_HALF_LIFE_MS));
  }

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const f = await this.compute();
      this.last = f;
      const m = this.d.metrics;
      m.queueDepth.set({ priority: 'single' }, f.queue.single);
      m.queueDepth.set({ priority: 'list' }, f.queue.list);
      m.throughput.set(f.throughput_per_s);
      m.itemsInFlight.set(this.d.inFlight());
      m.probeCapacity.set({ kind: 'total' }, f.probe_capacity.total);
      m.probeCapacity.set({ kind: 'in_use' }, f.probe_capacity.in_use);
      m.loadLevel.set(LEVEL_NUMBER[f.load]);
      // NaN when no estimate is honest (no probe capacity): Prometheus then shows no value.
      m.expectedSeconds.set({ what: 'single' }, f.seconds_per_single ?? Number.NaN);
      m.expectedSeconds.set({ what: 'per_1000' }, f.seconds_per_1000 ?? Number.NaN);
      m.noProbeCapacity.set(f.reason === 'no_probe_capacity' ? 1 : 0);
      this.kv ??= await new Kvm(this.d.nc).open(KV_BUCKETS.find((b) => b.bucket === 'LOAD')?.bucket ?? 'LOAD');
      await this.kv.put(this.d.config.LOAD_KEY, JSON.stringify(f));
    } catch (err) {
      this.kv = null;
      this.d.log.debug({ err: (err as Error).message }, 'load figures not published this tick');
    } finally {
      this.busy = false;
    }
  }
}
