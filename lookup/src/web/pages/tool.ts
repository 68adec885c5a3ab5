import { html } from '@dv/web';
import { QUOTA_SUBJECTS, type Caller } from '../../caller.ts';
import { clientIp } from '../../client.ts';
import { performLookup } from '../../lookups.ts';
import { TOOLS, type ToolSpec } from '../../tools.ts';
import { definePage, type LookupPage } from '../page.ts';
import { resultView } from '../result-view.ts';
import { searchForm } from '../parts.ts';

// GET /<slug>/<target>: the permalink every `source` link names, one per lookup tool (the table
// of tools.ts). It runs the same lookup as the REST call, through the same cache and the same
// quota of this client's address: a live lookup counts, a cached one is free and says how old it
// is. A refused target or a used-up allowance is a page in words (render.ts asPageError).

function toolPage(spec: ToolSpec): LookupPage {
  return definePage({
    method: 'get',
    path: `/${spec.slug}/:target`,
    handle: async ({ ctx, req }) => {
      const target = String(req.params.target ?? '');
      const ip = clientIp(req);
      const caller: Caller = { tier: 'anonymous', subject: QUOTA_SUBJECTS.anonymous(ip), ip };
      const env = await performLookup(ctx, caller, { tool: spec.name, target }, 'web');
      const shown = env.data.meta.domain || target;
      return {
        title: `${spec.title}: ${shown}`,
        body: html`<h1>${spec.title}: ${shown}</h1>
          ${resultView(env, `/v1/${spec.slug}/${encodeURIComponent(shown)}`, ctx.now())}
          <h2>Look up something else</h2>
          ${searchForm('')}`,
      };
    },
  });
}

export const TOOL_PAGES: readonly LookupPage[] = TOOLS.filter((t) => t.target !== 'record').map(toolPage);
