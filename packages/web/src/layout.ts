import { html, renderDocument, type Node, type VNode } from './html.ts';
import type { Assets } from './assets.ts';

// The page shell every service shares: a skip link, the product bar with its navigation and the
// signed-in person, flash messages, the main content and a footer. Styles and scripts are this
// origin's hashed assets only (the CSP allows nothing else); scripts are modules, deferred, so the
// page is whole before any of them runs and works when none does.

export interface NavItem {
  href: string;
  label: string;
}

export interface SignedInPerson {
  email: string;
  /** The sign-out form's target and its CSRF token. */
  signOutAction: string;
  csrf: string;
}

export interface Flash {
  kind: 'ok' | 'error' | 'info';
  text: string;
}

export interface Chrome {
  /** "Verification console", "Domain tools", "Portfolio". */
  product: string;
  homeHref: string;
  nav: readonly NavItem[];
  assets: Assets;
  /** Asset names beyond the shared `base.css` and `enhance.js`. */
  styles?: readonly string[];
  scripts?: readonly string[];
}

export interface PageContent {
  title: string;
  /** The request's path, to mark the current navigation item. */
  path?: string;
  person?: SignedInPerson;
  flash?: readonly Flash[];
  body: Node;
  /** A page that must not be indexed (a sign-in link, a key shown once). */
  noindex?: boolean;
}

function isCurrent(item: NavItem, path: string | undefined): boolean {
  if (!path) return false;
  return path === item.href || (item.href !== '/' && path.startsWith(`${item.href}/`));
}

function navigation(chrome: Chrome, content: PageContent): VNode {
  return html`<nav aria-label="Main">
    <ul class="nav">
      ${chrome.nav.map((item) => html`<li><a href=${item.href} aria-current=${isCurrent(item, content.path) ? 'page' : undefined}>${item.label}</a></li>`)}
    </ul>
  </nav>`;
}

function personMenu(person: SignedInPerson | undefined): VNode | null {
  if (!person) return null;
  return html`<form class="person" method="post" action=${person.signOutAction}>
    <span class="person-email" title="Signed in as">${person.email}</span>
    <input type="hidden" name="_csrf" value=${person.csrf} />
    <button type="submit" class="link">Sign out</button>
  </form>`;
}

export function flashList(flash: readonly Flash[] | undefined): VNode | null {
  if (!flash || flash.length === 0) return null;
  return html`<div class="flashes">
    ${flash.map((f) => html`<p class=${`flash flash-${f.kind}`} role=${f.kind === 'error' ? 'alert' : 'status'}>${f.text}</p>`)}
  </div>`;
}

export function renderPage(chrome: Chrome, content: PageContent): string {
  const styles = ['base.css', ...(chrome.styles ?? [])];
  const scripts = ['enhance.js', ...(chrome.scripts ?? [])];
  return renderDocument(html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      ${content.noindex ? html`<meta name="robots" content="noindex, nofollow" />` : null}
      <title>${content.title} · ${chrome.product}</title>
      <link rel="icon" href=${chrome.assets.url('favicon.svg')} type="image/svg+xml" />
      ${styles.map((s) => html`<link rel="stylesheet" href=${chrome.assets.url(s)} />`)}
      ${scripts.map((s) => html`<script type="module" src=${chrome.assets.url(s)}></script>`)}
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="bar">
        <a class="brand" href=${chrome.homeHref}>${chrome.product}</a>
        ${navigation(chrome, content)} ${personMenu(content.person)}
      </header>
      <main id="main" tabindex="-1">
        ${flashList(content.flash)}
        ${content.body}
      </main>
      <footer class="foot"><p>Pages load nothing from other sites and work without JavaScript.</p></footer>
    </body>
  </html>`);
}
