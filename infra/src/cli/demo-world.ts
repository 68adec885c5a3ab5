import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';

export interface DemoWorld {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The default simulated world (packages/world/worlds/default.json) for `npm run demo`. */
export async function startDemoWorld(): Promise<DemoWorld> {
  const world: WorldHandle = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  return {
    env: {
      ...world.env,
      // The world's hosts live on loopback addresses, which lookup refuses as targets and probe
      // nodes refuse as MX addresses by default, and its DNSBL answers as zen.spamhaus.org would.
      ALLOW_PRIVATE_TARGETS: 'true',
      PROBE_ALLOW_PRIVATE_MX: 'true',
      DNSBL_ZONES: 'zen.dnsbl.test=zen.spamhaus.org',
    },
    stop: () => world.stop(),
  };
}

/** Addresses of the default world worth trying with the live key, and what each should give. */
export function demoWorldSummary(): string[] {
  return [
    '',
    'The live key probes the simulated internet (packages/world/worlds/default.json). Addresses to try:',
    '  alice@acme.test        a real mailbox (deliverable)',
    '  nobody@acme.test       no such mailbox (undeliverable)',
    '  anyone@catchall.test   a catch-all domain (risky)',
    '  someone@nullmx.test    a domain that takes no mail (undeliverable, null MX)',
    '  x@missing.test         no such domain (undeliverable)',
  ];
}
