// Scheduler process: pulls verification items, runs them through DNS, batching, politeness and the
// probe fleet, stores results and events, publishes load figures (docs/scheduler.md).
import { runService } from '@dv/runtime';
import { schedulerConfigSchema } from './config.ts';
import { Scheduler } from './scheduler.ts';

let scheduler: Scheduler | undefined;

await runService({
  name: 'scheduler',
  schema: schedulerConfigSchema,
  needs: { nats: true, redis: true, mongo: true },
  start: async (ctx) => {
    scheduler = new Scheduler({ nc: ctx.nats!.nc, redis: ctx.redis!.redis, db: ctx.mongo!.db, config: ctx.config, log: ctx.log, registry: ctx.registry });
    await scheduler.start();
    ctx.log.info({ stream: ctx.config.VERIFY_STREAM, maxInFlight: ctx.config.MAX_ITEMS_IN_FLIGHT }, 'scheduler pulling');
  },
  stop: async (ctx) => {
    // Leave part of the shutdown budget for the stores and NATS drain that follow.
    await scheduler?.stop(Math.floor(ctx.config.SHUTDOWN_TIMEOUT_MS * 0.6));
  },
});
