import { clearCookie } from '@dv/web';
import { definePage } from '../page.ts';
import { SESSION_COOKIE } from '../viewer.ts';

// POST /app/sign-out-everywhere: every session of this person ends (other browsers, a lost
// laptop) before the answer; the next request of any of them is signed out.

export const signOutEverywhere = definePage({
  method: 'post',
  path: '/sign-out-everywhere',
  access: 'view_account',
  handle: async ({ cc, req, res, viewer }) => {
    const ended = await cc.sessions.endAll(viewer.personId);
    clearCookie(req, res, SESSION_COOKIE);
    return { redirect: '/app/sign-in', flash: { kind: 'info', text: `Signed out everywhere (${ended} ${ended === 1 ? 'session' : 'sessions'} ended).` } };
  },
});
