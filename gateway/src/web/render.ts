import type { Request, Response } from 'express';
import { can, type Action } from '@dv/accounts';
import { html, renderPage, takeFlash, type Chrome, type Flash, type NavItem, type Node } from '@dv/web';
import type { ConsoleContext } from './context.ts';
import type { Viewer } from './viewer.ts';

// The console's page shell: its navigation (only what the viewer's role may use), the signed-in
// person, the sandbox banner, and flash messages carried across a redirect in a short cookie.

interface ConsoleNavItem extends NavItem {
  needs: Action;
}

/** The console's navigation, in order; an item shows when the viewer's role allows its action. */
export const CONSOLE_NAV: readonly ConsoleNavItem[] = [
  { href: '/app/', label: 'Overview', needs: 'view_account' },
  { href: '/app/lists', label: 'Lists', needs: 'run_lists' },
  { href: '/app/check', label: 'Check an address', needs: 'check_addresses' },
  { href: '/app/account', label: 'Account', needs: 'view_account' },
  { href: '/app/keys', label: 'API keys', needs: 'manage_keys' },
  { href: '/app/members', label: 'Members', needs: 'view_account' },
  { href: '/app/plan', label: 'Plan', needs: 'view_account' },
];


export function chromeFor(cc: ConsoleContext, viewer: Viewer | null, scripts?: readonly string[]): Chrome {
  const nav = viewer ? CONSOLE_NAV.filter((n) => can(viewer.role, n.needs)) : [{ href: '/app/sign-in', label: 'Sign in' }];
  return { product: 'Verification console', homeHref: '/app/', nav, assets: cc.assets, styles: ['console.css'], scripts };
}


export interface PageView {
  title: string;
  body: Node;
  status?: number;
  flash?: Flash[];
  noindex?: boolean;
  /** Browser modules of this page (gateway/assets), on top of the shared ones. */
  scripts?: readonly string[];
}

function sandboxBanner(viewer: Viewer | null): Node {
  if (!viewer?.sandbox) return null;
  return html`<p class="sandbox-banner" role="note"><strong>Sandbox.</strong> Checks and lists run free with simulated results; nothing is sent to a mail server and no credit is used.</p>`;
}

export function sendPage(cc: ConsoleContext, req: Request, res: Response, viewer: Viewer | null, view: PageView): void {
  const csrf = (res.locals.csrfToken as () => string)();
  const person = viewer ? { email: viewer.email, signOutAction: '/app/sign-out', csrf } : undefined;
  const flash = [...takeFlash(req, res), ...(view.flash ?? [])];
  const body = html`${sandboxBanner(viewer)}${view.body}`;
  res.status(view.status ?? 200).type('html').send(renderPage(chromeFor(cc, viewer, view.scripts), { title: view.title, path: req.originalUrl.split('?')[0], person, flash, body, noindex: view.noindex }));
}
