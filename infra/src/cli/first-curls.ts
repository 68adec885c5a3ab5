import type { DemoKeys } from '../demo-account.ts';

/** The first commands printed by `npm start`: only routes that exist today, so each one works. */
export function firstCurls(gateway: string, keys: DemoKeys): string[] {
  return [
    `curl ${gateway}/v1/health`,
    `curl ${gateway}/readyz`,
    `npm run admin -- key:list --account ${keys.accountId}`,
  ];
}
