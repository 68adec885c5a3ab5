import { definePage, PageError } from '../page.ts';

// POST /app/switch-account: the session opens another account the person belongs to.

export const switchAccount = definePage({
  method: 'post',
  path: '/switch-account',
  access: 'view_account',
  handle: async ({ cc, req, viewer }) => {
    const id = (req.body as Record<string, unknown>).account;
    const to = viewer.accounts.find((a) => a.id === id);
    if (!to) throw new PageError(404, 'Not found', 'You do not belong to that account.');
    await cc.sessions.update(viewer.session, { ...viewer.session.data, accountId: to.id });
    return { redirect: '/app/', flash: { kind: 'ok', text: `Now working in ${to.name}.` } };
  },
});
