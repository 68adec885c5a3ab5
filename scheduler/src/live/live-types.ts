// The live path's shared shapes, apart from live.ts so the dispatcher can use them without an
// import cycle (live.ts builds the dispatcher).
import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import type { Logger } from '@dv/runtime';
import type { DnsOutcome, ProviderRow } from '@dv/verdict';
import type { SchedulerConfig } from '../config.ts';
import type { Finisher } from '../store/finisher.ts';
import type { Fleet } from '../fleet/fleet.ts';
import type { HeldItem } from '../intake/held-item.ts';
import type { SchedulerMetrics } from '../metrics.ts';

export interface LiveDeps {
  nc: NatsConnection;
  redis: Redis;
  db: Db;
  config: SchedulerConfig;
  log: Logger;
  metrics: SchedulerMetrics;
  finisher: Finisher;
  fleet: Fleet;
}

/** An item on the live path with what DNS said about its domain. */
export interface LiveItem {
  h: HeldItem;
  dns: Extract<DnsOutcome, { kind: 'ok' }>;
  provider: ProviderRow;
}

