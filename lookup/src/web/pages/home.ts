import { html, type PageCall, type PageView } from '@dv/web';
import type { LookupContext } from '../../context.ts';
import { allowanceText, anonymousAllowance } from '../allowance.ts';
import { definePage } from '../page.ts';
import { keyForm, searchForm, toolList } from '../parts.ts';

// GET /: the home page for a browser (a client that prefers text/html; every other client gets
// the JSON service index of routes/service-index.ts at the same address). One search box, the
// tools, today's allowance (read, never spent) and the free-key form.

export async function homeView(call: PageCall<LookupContext>, search: { value: string; error?: string } = { value: '' }): Promise<PageView> {
  const { ctx, req } = call;
  const allowance = await anonymousAllowance(ctx, req);
  return {
    title: 'Domain and email-security lookups',
    status: search.error ? 400 : 200,
    body: html`<h1>Domain and email-security lookups</h1>
      ${searchForm(search.value, search.error)}
      <p class="allowance" id="allowance">${allowanceText(allowance, ctx.config.FREE_KEY_LOOKUPS_PER_DAY)}</p>
      <h2>Tools</h2>
      ${toolList()}
      <p>The same lookups answer as JSON over REST (<a href="/openapi.json">OpenAPI description</a>) and to AI agents over MCP at <code>/mcp</code>.</p>
      <h2 id="free-key">Free API key</h2>
      ${keyForm(call.csrf(), '', ctx.config.FREE_KEY_LOOKUPS_PER_DAY)}`,
  };
}

export const homePage = definePage({
  method: 'get',
  path: '/',
  handle: async (call) => homeView(call),
});
