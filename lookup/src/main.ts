import { runService } from '@dv/runtime';
import { lookupConfigSchema } from './config.ts';

await runService({
  name: 'lookup',
  schema: lookupConfigSchema,
  needs: { redis: true, mongo: true },
});
