import { renderHtml } from '@dv/web';
import { definePage } from '../page.ts';
import { checkRegion, loadCheck } from './check-result.ts';

// GET /app/check/<job>/live: the check page's live region alone (enhance.js swaps it in), until
// it carries data-live-done. Not a page of its own: no shell, nothing cached.

export const checkLive = definePage({
  method: 'get',
  path: '/check/:jobId/live',
  access: 'check_addresses',
  handle: async ({ cc, req, res, viewer }) => {
    const check = await loadCheck(cc, viewer, String(req.params.jobId));
    res.type('html').send(renderHtml(checkRegion(check)));
    return { done: true };
  },
});
