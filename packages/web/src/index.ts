// @dv/web: the pages' foundation shared by the gateway's console, the lookup's web tools and the
// portfolio dashboard. Markup that escapes by construction, the page shell and its parts, charts
// as SVG, hashed assets, security headers, server-side sessions, one-time links and CSRF.
import { fileURLToPath } from 'node:url';

export { fragment, html, isSafeUrl, rawHtml, renderDocument, renderHtml, type Node, type VNode } from './html.ts';
export { ASSET_PATH_PREFIX, loadAssets, type Assets } from './assets.ts';
export { PAGE_SECURITY_HEADERS, contentSecurityPolicy, pageSecurityHeaders, type CspOptions } from './csp.ts';
export { clearCookie, cookieName, readCookie, secureCookies, setCookie } from './cookies.ts';
export { CSRF_FIELD, CSRF_HEADER, crossSiteReason, csrfProtection, csrfToken, multipartAction, type CsrfOptions } from './csrf.ts';
export { SessionStore, type Session, type SessionTimes } from './sessions.ts';
export { OneTimeTokens } from './one-time.ts';
export { flashList, renderPage, type Chrome, type Flash, type NavItem, type PageContent, type SignedInPerson } from './layout.ts';
export { badge, copyable, facts, field, postForm, select, submit, table, type Column, type FieldProps, type SelectProps } from './components.ts';
export { PageError, finishPage, flashNext, mountPages, takeFlash, type PageCall, type PageDef, type PageRenderer, type PageResult, type PageView } from './pages.ts';
export { progress, proportionBar, stackedColumns, type Part, type Series } from './charts.ts';

/** The shared assets (base.css, enhance.js); a service lists its own directory after this one. */
export const WEB_ASSETS_DIR = fileURLToPath(new URL('../assets/', import.meta.url));
