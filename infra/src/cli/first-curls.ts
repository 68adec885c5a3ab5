import type { DemoKeys } from '../demo-account.ts';

/** The first commands printed by `npm start`: each works against the stack it just started. */
export function firstCurls(urls: { gateway: string; lookup: string }, keys: DemoKeys, demo: boolean, channels: { webhookUrl: string }): string[] {
  // The demo answers from the simulated internet; a plain start asks the machine's resolvers.
  const domain = demo ? 'acme.test' : 'example.com';
  const sandbox = `-H "Authorization: Bearer ${keys.sandbox}"`;
  const json = '-H "Content-Type: application/json"';
  // A sandbox job completes at once and pushes on both channels: the completion email goes to the
  // account's address through the mail catcher, the signed webhook to the local receiver.
  const job = JSON.stringify({ emails: ['jane.doe@example.com', 'info@example.org'], label: 'first job', notify_email: true, webhook_url: channels.webhookUrl });
  return [
    `curl ${urls.gateway}/v1/health`,
    `curl ${sandbox} ${json} -d '{"email":"jane.doe@example.com"}' ${urls.gateway}/v1/verify`,
    `curl ${sandbox} ${urls.gateway}/v1/account`,
    `curl ${urls.lookup}/v1/email-security/${domain}`,
    `curl ${sandbox} ${json} -d '${job}' ${urls.gateway}/v1/jobs`,
    `curl ${json} -d '{"email":"you@example.com"}' ${urls.lookup}/v1/keys/request`,
    `npm run admin -- inbox     (the completion email, the free-key email with its link, the signed webhook)`,
    `MCP connector URL (OAuth: paste a key on the consent page): ${urls.gateway}/mcp`,
    `npm run admin -- key:list --account ${keys.accountId}`,
  ];
}
