import { definePage } from '../page.ts';
import { searchDestination } from '../search.ts';
import { homeView } from './home.ts';

// GET /search?q=…: the home page's search box. A GET form (it changes nothing, and the answer's
// address is the permalink to share): a redirect to the tool's permalink, or the home page again
// with the reason in words beside the box and what was typed kept in it.

export const searchPage = definePage({
  method: 'get',
  path: '/search',
  handle: async (call) => {
    const q = typeof call.req.query.q === 'string' ? call.req.query.q : '';
    const outcome = searchDestination(q, call.ctx.config.MAX_RECORD_CHARS);
    if (outcome.ok) return { redirect: outcome.path };
    return { ...(await homeView(call, { value: q.slice(0, 300), error: outcome.reason })), title: 'Look up' };
  },
});
