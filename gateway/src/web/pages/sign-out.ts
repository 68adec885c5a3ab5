import { clearCookie } from '@dv/web';
import { definePage } from '../page.ts';
import { SESSION_COOKIE } from '../viewer.ts';

// POST /app/sign-out: this browser's session ends before the answer.

export const signOut = definePage({
  method: 'post',
  path: '/sign-out',
  access: 'anyone',
  handle: async ({ cc, req, res, viewer }) => {
    if (viewer) await cc.sessions.end(viewer.session.id);
    clearCookie(req, res, SESSION_COOKIE);
    return { redirect: '/app/sign-in', flash: { kind: 'info', text: 'Signed out.' } };
  },
});
