import { runService } from '@dv/runtime';
import { mountLookup } from './app.ts';
import { lookupConfigSchema, lookupProductionRules } from './config.ts';
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
    const engine = createLookupEngine(config);
    ctx = createLookupContext({ config, engine, redis: service.redis!.redis, db: service.mongo!.db, log: service.log, registry: service.registry });
    await mountLookup(app, ctx, service.mongo!.db);
  },
  stop: async () => {
    await ctx?.engine.close();
    ctx?.mailer?.close();
  },
});
