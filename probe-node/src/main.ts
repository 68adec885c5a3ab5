// Probe node process: one SMTP session per NATS request on `probe.<nodeId>.session`.
import { hostname } from 'node:os';
import { runService } from '@dv/runtime';
import { probeConfigSchema, probeProductionRules } from './config.ts';
import { ProbeNode } from './node.ts';
import { nodeIdFrom } from './node-id.ts';

let node: ProbeNode | undefined;

await runService({
  name: 'probe-node',
  schema: probeConfigSchema,
  unsafeInProduction: probeProductionRules,
  needs: { nats: true },
  start: async (ctx) => {
    const nodeId = nodeIdFrom(ctx.config.PROBE_NODE_ID, hostname());
    node = new ProbeNode({ nc: ctx.nats!.nc, config: ctx.config, nodeId, log: ctx.log, registry: ctx.registry });
    node.start();
    ctx.log.info(
      { nodeId, subject: node.subject, sourceIps: ctx.config.PROBE_SOURCE_IPS, capacity: ctx.config.PROBE_MAX_CONCURRENT_SESSIONS, heloName: ctx.config.PROBE_HELO_NAME },
      'probe node serving',
    );
  },
  stop: async (ctx) => {
    // Leave room in the shutdown budget for replies to flush and NATS to drain afterwards.
    await node?.stop(Math.min(ctx.config.PROBE_DRAIN_TIMEOUT_MS, Math.floor(ctx.config.SHUTDOWN_TIMEOUT_MS * 0.7)));
  },
});
