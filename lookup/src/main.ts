import { resolverDependency } from '@dv/mailsec';
import { runService } from '@dv/runtime';
import { mountLookup } from './app.ts';
import { lookupConfigSchema, lookupProductionRules, webSecret } from './config.ts';
import { createLookupContext, type LookupContext } from './context.ts';
import { createLookupEngine } from './engine.ts';

let ctx: LookupContext | undefined;

await runService({
  name: 'lookup',
  schema: lookupConfigSchema,
  unsafeInProduction: lookupProductionRules,
  needs: { redis: true, mongo: true },
  routes: async (app, service) => {
    const { config } = service;
    const secret = webSecret(config);
    if ('error' in secret) {
      service.log.fatal(secret.error);
      process.exit(78);
    }
    if (secret.warning) service.log.warn(secret.warning);
    const engine = createLookupEngine(config, service.log);
    ctx = createLookupContext({ config, engine, redis: service.redis!.redis, db: service.mongo!.db, log: service.log, registry: service.registry, webSecret: secret.secret });
    await mountLookup(app, ctx, service.mongo!.db);
  },
  // The engine's resolver denying names that exist (or answering them all alike): /readyz names `resolver`.
  dependencies: () => [resolverDependency(() => (ctx?.engine.resolverSanity ? [ctx.engine.resolverSanity] : []))],
  stop: async () => {
    await ctx?.engine.close();
    ctx?.mailer?.close();
  },
});
