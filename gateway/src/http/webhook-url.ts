import { z } from 'zod';
import { isLoopbackAddress } from '@dv/net';
import { checkUrl, type RefusedTarget } from '@dv/notify';
import { validationError } from './problems.ts';

// webhook_url at intake: the synchronous half of @dv/notify's delivery guard (`checkUrl`: scheme,
// credentials, port, control characters, length, private or loopback IP literals), so a URL every
// delivery try would refuse is a 422 now instead of a job whose webhook gives up hours later. Host
// names are resolved by each delivery try, not here (their addresses can change; docs/notify.md §5).
//
// The test-only loopback switch (WEBHOOK_ALLOW_HTTP_LOOPBACK, the same variable the notify worker
// reads) is configuration, which a static request schema cannot see. So the schema applies the
// production rules, except that a loopback target (a loopback IP literal or `localhost`) is left
// to `vetWebhookUrl`, which the handler calls with the switch. The schema's refusals then arrive
// in one 422 together with the request's other validation issues.

function loopbackTarget(url: string): boolean {
  const lenient = checkUrl(url, { allowHttpLoopback: true });
  if (!lenient.ok) return false;
  return lenient.literal ? isLoopbackAddress(lenient.literal.address) : lenient.hostname.toLowerCase() === 'localhost';
}

function refusalMessage(r: RefusedTarget): string {
  return `webhook_url refused: ${r.detail}`;
}

export const webhookUrlField = z
  .string()
  .max(2048)
  .superRefine((url, ctx) => {
    const r = checkUrl(url);
    if (r.ok || loopbackTarget(url)) return;
    ctx.addIssue({ code: 'custom', message: refusalMessage(r) });
  })
  .meta({
    description: 'https URL (max 2048 chars, port 443 or 1024-65535, no credentials, not a private or loopback IP address) that receives the signed job.completed POST.',
    example: 'https://hooks.example.com/verify',
  });

/**
 * The intake check with the loopback switch applied (call after the schema): null when the URL is
 * absent, the URL when acceptable, else a 422 validation_error at `loc`.
 */
export function vetWebhookUrl(url: string | null | undefined, allowHttpLoopback: boolean, loc: (string | number)[] = ['body', 'webhook_url']): string | null {
  if (url == null) return null;
  const r = checkUrl(url, { allowHttpLoopback });
  if (r.ok) return url;
  throw validationError([{ loc, msg: refusalMessage(r), type: 'custom', input: url }]);
}
