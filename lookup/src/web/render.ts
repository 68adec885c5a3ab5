import type { Request, Response } from 'express';
import { ApiError } from '@dv/runtime';
import { html, PAGE_SECURITY_HEADERS, PageError, renderPage, takeFlash, type Chrome, type PageRenderer, type PageView } from '@dv/web';
import type { LookupContext } from '../context.ts';

// The lookup's page shell: its navigation and styles, flash messages, and the error pages. API
// errors thrown by the shared services (a bad address, a limit reached) become pages in words.

export const LOOKUP_NAV = [
  { href: '/', label: 'Tools' },
  { href: '/key', label: 'Free API key' },
] as const;

export function chromeFor(ctx: LookupContext, scripts?: readonly string[]): Chrome {
  return { product: 'Domain tools', homeHref: '/', nav: LOOKUP_NAV, assets: ctx.web.assets, styles: ['lookup.css'], scripts };
}

/** Renders a view; pages reached outside the page router (the emailed link's routes) get the page headers here. */
export function sendPage(ctx: LookupContext, req: Request, res: Response, view: PageView): void {
  const flash = [...takeFlash(req, res), ...(view.flash ?? [])];
  res.status(view.status ?? 200).type('html').send(renderPage(chromeFor(ctx, view.scripts), { title: view.title, path: req.path, flash, body: view.body, noindex: view.noindex }));
}

/** The page headers (CSP without unsafe-inline, no framing, never cached) for a route outside the page router. */
export function setPageHeaders(res: Response): void {
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
}

export function errorView(e: PageError): PageView {
  // A used-up allowance is where a free key helps.
  const keyLink = e.title === API_ERROR_TITLES.quota_exhausted ? html`<p><a href="/key">Get a free API key</a> for more lookups a day.</p>` : null;
  return { title: e.title, status: e.status, body: html`<h1>${e.title}</h1><p class="lead">${e.message}</p>${keyLink}<p><a href="/">Back to the tools</a></p>` };
}

const API_ERROR_TITLES: Readonly<Record<string, string>> = {
  invalid_request: 'That did not work',
  invalid_target: 'Not a domain or IP address',
  rate_limited: 'Too many requests',
  quota_exhausted: 'Today\'s allowance is used up',
  service_unavailable: 'Not available right now',
  verification_link_expired: 'This link no longer works',
};

export function asPageError(err: unknown): PageError | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === 'quota_exhausted' && err.extra.tier === 'anonymous') {
    // The API's words tell a program how to POST for a key; a person gets the page's form.
    return new PageError(429, API_ERROR_TITLES.quota_exhausted!, `The ${String(err.extra.limit)} lookups a day for your address are used up; they come back at 00:00 UTC. Answers already in the cache stay free.`);
  }
  const detail = typeof err.detail === 'string' ? err.detail : err.code;
  return new PageError(err.status, API_ERROR_TITLES[err.code] ?? 'That did not work', detail);
}

export function lookupRenderer(ctx: LookupContext): PageRenderer {
  return { send: (req, res, view) => sendPage(ctx, req, res, view), errorView, asPageError };
}
