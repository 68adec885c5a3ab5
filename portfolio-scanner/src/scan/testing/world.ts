// The simulated DNS world of the scan tests: default.json and mailsec.json (through mailsec's own
// merge) plus world.json beside this file, the scanner's scripted domains.
import { fileURLToPath } from 'node:url';
import { loadWorld, startWorld, type WorldHandle, type WorldInput } from '@dv/world';
import { mailsecWorld } from '@dv/mailsec/testing';

export const PORTFOLIO_WORLD_PATH = fileURLToPath(new URL('./world.json', import.meta.url));

export function portfolioWorld(): WorldInput {
  const base = mailsecWorld();
  const extra = loadWorld(PORTFOLIO_WORLD_PATH);
  return {
    ...base,
    name: 'portfolio-scan-tests',
    dns: {
      ...base.dns,
      records: [...(base.dns?.records ?? []), ...extra.dns.records],
      behaviours: { ...base.dns?.behaviours, ...extra.dns.behaviours },
    },
  };
}

export function startPortfolioWorld(): Promise<WorldHandle> {
  return startWorld(portfolioWorld());
}
