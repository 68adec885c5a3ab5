import { runService } from '@dv/runtime';
import { portfolioConfigSchema } from './config.ts';

await runService({
  name: 'portfolio-scanner',
  schema: portfolioConfigSchema,
  needs: { nats: true, redis: true, mongo: true },
});
