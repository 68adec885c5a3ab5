import type { DemoKeys } from '../demo-account.ts';

/** The first commands printed by `npm start`: only routes that exist today, so each one works. */
export function firstCurls(urls: { gateway: string; lookup: string }, keys: DemoKeys, demo: boolean): string[] {
  // The demo answers from the simulated internet; a plain start asks the machine's resolvers.
  const domain = demo ? 'acme.test' : 'example.com';
  return [
    `curl ${urls.gateway}/v1/health`,
    `curl ${urls.lookup}/v1/email-security/${domain}`,
    `npm run admin -- key:list --account ${keys.accountId}`,
  ];
}
