import { runService } from '@dv/runtime';
import { gatewayConfigSchema } from './config.ts';
import { mountHealth } from './routes/health.ts';

await runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  needs: { nats: true, redis: true, mongo: true },
  routes: (app) => {
    mountHealth(app);
  },
});
