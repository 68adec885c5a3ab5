// Scheduler process: pulls verification items, runs them through DNS, batching, politeness and the
// probe fleet, stores results and events, publishes load figures (docs/scheduler.md).
import { notifyWorkerSettings, resolveDownloadSecret, startNotifyWorker, type NotifyWorker } from '@dv/notify';
import { resolverDependency } from '@dv/mailsec';
import { runService } from '@dv/runtime';
import { schedulerConfigSchema, schedulerProductionRules } from './config.ts';
import { Scheduler } from './scheduler.ts';

let scheduler: Scheduler | undefined;
let notifier: NotifyWorker | undefined;

await runService({
  name: 'scheduler',
  schema: schedulerConfigSchema,
  unsafeInProduction: schedulerProductionRules,
  needs: { nats: true, redis: true, mongo: true },
  start: async (ctx) => {
    scheduler = new Scheduler({ nc: ctx.nats!.nc, redis: ctx.redis!.redis, db: ctx.mongo!.db, config: ctx.config, log: ctx.log, registry: ctx.registry });
    await scheduler.start();
    ctx.log.info({ stream: ctx.config.VERIFY_STREAM, maxInFlight: ctx.config.MAX_ITEMS_IN_FLIGHT }, 'scheduler pulling');
    const secret = resolveDownloadSecret(ctx.config.DOWNLOAD_SIGNING_SECRET, ctx.config.NODE_ENV);
    if ('error' in secret) throw new Error(secret.error);
    if (secret.warning) ctx.log.warn(secret.warning);
    notifier = startNotifyWorker(
      notifyWorkerSettings(ctx.config, { db: ctx.mongo!.db, log: ctx.log, registry: ctx.registry, publicBaseUrl: ctx.config.PUBLIC_BASE_URL, downloadSecret: secret.secret }),
    );
  },
  // No probe node alive: the scheduler is up (routing elsewhere would not help) but cannot probe.
  degraded: () => (scheduler?.load.last?.reason ? [scheduler.load.last.reason] : []),
  // Its resolver denying names that exist (or answering them all alike): /readyz names `resolver`.
  dependencies: () => [resolverDependency(() => (scheduler ? [scheduler.live.resolverSanity] : []))],
  stop: async (ctx) => {
    // Leave part of the shutdown budget for the stores and NATS drain that follow.
    await Promise.all([scheduler?.stop(Math.floor(ctx.config.SHUTDOWN_TIMEOUT_MS * 0.6)), notifier?.stop()]);
  },
});
