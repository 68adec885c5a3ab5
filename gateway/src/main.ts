import { runService } from '@dv/runtime';
import { mountGateway } from './app.ts';
import { downloadSecret, gatewayConfigSchema, gatewayProductionRules } from './config.ts';
import { createGatewayContext, startContext, stopContext, type GatewayContext } from './context.ts';

let ctx: GatewayContext | undefined;

await runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  unsafeInProduction: gatewayProductionRules,
  needs: { nats: true, redis: true, mongo: true },
  routes: async (app, service) => {
    const secret = downloadSecret(service.config);
    if ('error' in secret) {
      service.log.fatal(secret.error);
      process.exit(78);
    }
    if (secret.warning) service.log.warn(secret.warning);
    ctx = createGatewayContext({
      config: service.config,
      downloadSecret: secret.secret,
      log: service.log,
      registry: service.registry,
      db: service.mongo!.db,
      redis: service.redis!.redis,
      nc: service.nats!.nc,
      shutdownSignal: service.shutdownSignal,
    });
    await startContext(ctx);
    mountGateway(app, ctx);
  },
  stop: async () => {
    if (ctx) await stopContext(ctx);
  },
});
