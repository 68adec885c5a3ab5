import { runService } from '@dv/runtime';
import { schedulerConfigSchema } from './config.ts';

await runService({
  name: 'scheduler',
  schema: schedulerConfigSchema,
  needs: { nats: true, redis: true, mongo: true },
});
