import { definePage } from '../page.ts';

// POST /app/sandbox: the session's sandbox switch. In sandbox mode the console's checks and lists
// run with the account's sandbox mode (free, simulated, deterministic) and every page says so.

export const sandboxSwitch = definePage({
  method: 'post',
  path: '/sandbox',
  access: 'view_account',
  handle: async ({ cc, req, viewer }) => {
    const on = (req.body as Record<string, unknown>).on === 'on';
    await cc.sessions.update(viewer.session, { ...viewer.session.data, sandbox: on });
    return { redirect: '/app/', flash: { kind: 'info', text: on ? 'Sandbox mode is on: results are simulated and free.' : 'Sandbox mode is off: checks and lists use credits.' } };
  },
});
