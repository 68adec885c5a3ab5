import type { Request, Response, Router } from 'express';
import { clearCookie, readCookie, setCookie } from './cookies.ts';
import type { Node } from './html.ts';
import type { Flash } from './layout.ts';

// The page plumbing a service's pages share: one page per file as a PageDef (method, path, a
// handler that returns a page to render or a redirect), errors thrown on purpose as PageError (a
// status and words), and a flash message carried across a redirect in a short cookie (POST,
// redirect, GET: a reload never posts twice). The service supplies how a view is rendered (its
// chrome) and which of its own errors become pages.

export interface PageView {
  title: string;
  body: Node;
  status?: number;
  flash?: Flash[];
  noindex?: boolean;
  /** Browser modules of this page, on top of the shared ones. */
  scripts?: readonly string[];
}

export type PageResult = PageView | { redirect: string; flash?: Flash } | { done: true };

/** An error a page handler throws on purpose: the status and the words the error page shows. */
export class PageError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(status: number, title: string, message: string) {
    super(message);
    this.status = status;
    this.title = title;
  }
}

const FLASH_COOKIE = 'dv_flash';

/** A message for the next page this browser opens (after a redirect). */
export function flashNext(req: Request, res: Response, flash: Flash): void {
  setCookie(req, res, FLASH_COOKIE, JSON.stringify(flash).slice(0, 1_000), { maxAgeMs: 60_000 });
}

/** The message left by the previous request, once. */
export function takeFlash(req: Request, res: Response): Flash[] {
  const raw = readCookie(req, FLASH_COOKIE);
  if (!raw) return [];
  clearCookie(req, res, FLASH_COOKIE);
  try {
    const f = JSON.parse(raw) as Flash;
    return typeof f.text === 'string' && ['ok', 'error', 'info'].includes(f.kind) ? [f] : [];
  } catch {
    return [];
  }
}

export interface PageCall<C> {
  ctx: C;
  req: Request;
  res: Response;
  /** The CSRF token for this page's forms (csrfProtection must be mounted before the pages). */
  csrf(): string;
}

export interface PageDef<C> {
  method: 'get' | 'post';
  path: string;
  handle(call: PageCall<C>): Promise<PageResult>;
}

export interface PageRenderer {
  /** Writes a view with the service's page shell. */
  send(req: Request, res: Response, view: PageView): void;
  /** The page of an error: its title, words and a way back. */
  errorView(e: PageError): PageView;
  /** A service's own errors that deserve a page (its API errors); null: rethrown, a 500 page. */
  asPageError?(err: unknown): PageError | null;
}

/** Writes what a handler returned: a redirect (303, with its flash), a page, or nothing (already sent). */
export function finishPage(req: Request, res: Response, result: PageResult, renderer: PageRenderer): void {
  if ('done' in result) return;
  if ('redirect' in result) {
    if (result.flash) flashNext(req, res, result.flash);
    res.redirect(303, result.redirect);
    return;
  }
  renderer.send(req, res, result);
}

/** Mounts each page on the router; a PageError (or a service error it converts) becomes its page. */
export function mountPages<C>(router: Router, ctx: C, pages: readonly PageDef<C>[], renderer: PageRenderer): void {
  for (const def of pages) {
    router[def.method](def.path, (req, res, next) => {
      const call: PageCall<C> = { ctx, req, res, csrf: () => (res.locals.csrfToken as () => string)() };
      def
        .handle(call)
        .then((result) => finishPage(req, res, result, renderer))
        .catch((err: unknown) => {
          const known = err instanceof PageError ? err : (renderer.asPageError?.(err) ?? null);
          if (!known) return next(err);
          renderer.send(req, res, renderer.errorView(known));
        });
    });
  }
}
