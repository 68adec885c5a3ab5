import { html, type PageCall, type PageView } from '@dv/web';
import { ApiError } from '@dv/runtime';
import { clientIp } from '../../client.ts';
import type { LookupContext } from '../../context.ts';
import { requestFreeKey } from '../../keys/flow.ts';
import { allowanceText, anonymousAllowance } from '../allowance.ts';
import { definePage } from '../page.ts';
import { keyForm } from '../parts.ts';

// GET /key: the free-key form; POST /key: the same flow as POST /v1/keys/request (its limits per
// address and per client IP, the same email with a single-use link), then "check your inbox".
// The answer is the same whether or not the address already has a key.

function formView(call: PageCall<LookupContext>, value: string, error?: string): PageView {
  return {
    title: 'Free API key',
    status: error ? 400 : 200,
    body: html`<h1>Get a free API key</h1>${keyForm(call.csrf(), value, call.ctx.config.FREE_KEY_LOOKUPS_PER_DAY, error)}`,
  };
}

export const keyPage = definePage({
  method: 'get',
  path: '/key',
  handle: async (call) => formView(call, ''),
});

export const keySend = definePage({
  method: 'post',
  path: '/key',
  handle: async (call) => {
    const { ctx, req } = call;
    const raw = (req.body as Record<string, unknown> | undefined)?.email;
    const typed = typeof raw === 'string' ? raw : '';
    let sent;
    try {
      sent = await requestFreeKey(ctx, typed, clientIp(req));
    } catch (err) {
      // A bad address is answered beside the field; limits and a missing relay become error pages.
      if (err instanceof ApiError && err.code === 'invalid_request') return formView(call, typed.slice(0, 254), 'Enter an email address such as you@example.com.');
      throw err;
    }
    const allowance = await anonymousAllowance(ctx, req);
    const until = sent.expires_at.replace('T', ' ').slice(0, 16);
    return {
      title: 'Check your inbox',
      body: html`<h1>Check your inbox</h1>
        <p class="lead" role="status">We sent a link to <strong>${sent.email}</strong>. Open it before ${until} UTC and press its button: the next page shows your free key once.</p>
        <p>Nothing there? Look in the spam folder, or <a href="/key">ask for another link</a>.</p>
        <p class="allowance">${allowanceText(allowance, ctx.config.FREE_KEY_LOOKUPS_PER_DAY)}</p>`,
    };
  },
});
