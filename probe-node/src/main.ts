import { runService } from '@dv/runtime';
import { probeConfigSchema } from './config.ts';

await runService({
  name: 'probe-node',
  schema: probeConfigSchema,
  needs: { nats: true },
});
