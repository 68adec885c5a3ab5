import type { DemoKeys } from '../demo-account.ts';

/** The first commands printed by `npm start`: each works against the stack it just started. */
export function firstCurls(urls: { gateway: string; lookup: string }, keys: DemoKeys, demo: boolean): string[] {
  // The demo answers from the simulated internet; a plain start asks the machine's resolvers.
  const domain = demo ? 'acme.test' : 'example.com';
  const sandbox = `-H "Authorization: Bearer ${keys.sandbox}"`;
  return [
    `curl ${urls.gateway}/v1/health`,
    `curl ${sandbox} -H "Content-Type: application/json" -d '{"email":"jane.doe@example.com"}' ${urls.gateway}/v1/verify`,
    `curl ${sandbox} ${urls.gateway}/v1/account`,
    `curl ${urls.lookup}/v1/email-security/${domain}`,
    `MCP connector URL (OAuth: paste a key on the consent page): ${urls.gateway}/mcp`,
    `npm run admin -- key:list --account ${keys.accountId}`,
  ];
}
