// Wiring of one scheduler replica: intake → pipeline → (finisher | live path), the sweeps, the
// probe fleet registry and the load publisher. main.ts runs it under runService; tests run it in
// process with their own connections.
import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Logger, WorkLoop } from '@dv/runtime';
import type { SchedulerConfig } from './config.ts';
import { Finisher } from './store/finisher.ts';
import { Fleet } from './fleet/fleet.ts';
import { releaseHeld, type HeldItem } from './intake/held-item.ts';
import { createIntake, type IntakePriority } from './intake/intake.ts';
import { LivePath } from './live/live.ts';
import { LoadPublisher } from './load/load-publisher.ts';
import { createSchedulerMetrics } from './metrics.ts';
import { Pipeline } from './intake/pipeline.ts';
import { ResultStore } from './store/store.ts';
import { Sweeper } from './sweeps/sweep.ts';

export interface SchedulerDeps {
  nc: NatsConnection;
  redis: Redis;
  db: Db;
  config: SchedulerConfig;
  log: Logger;
  registry: Registry;
}

export class Scheduler {
  readonly held = new Set<HeldItem>();
  readonly store: ResultStore;
  readonly fleet: Fleet;
  readonly live: LivePath;
  private readonly finisher: Finisher;
  private readonly pipeline: Pipeline;
  private readonly intake: WorkLoop<IntakePriority>;
  private readonly sweeper: Sweeper;
  readonly load: LoadPublisher;

  constructor(deps: SchedulerDeps) {
    const { config, log } = deps;
    const metrics = createSchedulerMetrics(deps.registry);
    this.store = new ResultStore({ db: deps.db, nc: deps.nc, log, metrics, cacheRetentionDays: config.CACHE_RETENTION_DAYS });
    this.load = new LoadPublisher({ nc: deps.nc, db: deps.db, redis: deps.redis, config, log, metrics, fleet: () => this.fleet, inFlight: () => this.held.size });
    this.finisher = new Finisher({ store: this.store, log, onFinished: (n) => this.load.recordFinished(n), coalesceMs: config.STORE_COALESCE_MS, maxBatch: config.STORE_BATCH_MAX, parallel: config.STORE_PARALLEL_FLUSHES });
    this.fleet = new Fleet({ nc: deps.nc, log, goneMs: config.PROBE_NODE_GONE_MS });
    this.live = new LivePath({ ...deps, metrics, finisher: this.finisher, fleet: this.fleet });
    this.pipeline = new Pipeline({
      db: deps.db, log, store: this.store, finisher: this.finisher, live: (h) => this.live.enqueue(h), held: this.held,
      maxDeliveries: config.VERIFY_MAX_DELIVERIES,
      onPoison: (h, reason, count) => {
        metrics.poisonItems.inc({ reason });
        log.error({ item: h.item._id, job_id: h.item.job_id, reason, count, request_id: h.requestId }, 'poison item ended as unknown');
      },
    });
    this.intake = createIntake({
      nc: deps.nc,
      log,
      stream: config.VERIFY_STREAM,
      singleConsumer: config.SINGLE_CONSUMER,
      listConsumer: config.LIST_CONSUMER,
      fetchBatch: config.FETCH_BATCH,
      maxInFlight: config.MAX_ITEMS_IN_FLIGHT,
      singleReserve: config.SINGLE_RESERVE,
      // Messages held through a long politeness wait must not reach ack_wait (redelivery elsewhere).
      keepAliveMs: config.ACK_PROGRESS_INTERVAL_MS,
      // Items already finished and waiting for the store do not count against the in-flight limit
      // (they need no more work), so a slow store never starves the batches of company; the store
      // backlog has its own limit, beyond which intake stops (backpressure).
      inFlight: () => (this.finisher.backlog >= config.STORE_BACKLOG_MAX ? Infinity : this.held.size - this.finisher.backlog),
      onMessage: (msg, lease, priority) => this.pipeline.onMessage(msg, lease, priority),
    });
    this.sweeper = new Sweeper({ ...deps, store: this.store, metrics });
  }

  async start(): Promise<void> {
    this.fleet.start();
    await this.intake.start();
    this.sweeper.start();
    this.load.start();
  }

  /**
   * Graceful stop: no more pulls or sweeps, sessions in flight finish (their results are stored),
   * everything still waiting (batch windows, politeness gates) is released for another replica.
   */
  async stop(budgetMs = 6_000): Promise<void> {
    await this.intake.stop();
    this.sweeper.stop();
    this.load.stop();
    await this.intake.idle();
    await this.live.stop(budgetMs);
    await this.finisher.drain();
    for (const h of [...this.held]) releaseHeld(h);
    this.intake.giveBack();
    this.fleet.stop();
  }
}
