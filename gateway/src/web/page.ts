import type { Request, Response, Router } from 'express';
import { AccountError, can, type Action } from '@dv/accounts';
import { ApiError } from '@dv/runtime';
import { flashNext, html, PageError } from '@dv/web';
import type { ConsoleContext } from './context.ts';
import { sendPage, type PageView } from './render.ts';
import { loadViewer, type Viewer } from './viewer.ts';

// One console page per file (pages/*.ts), each a definePage: its method and path, who may open it
// (anyone, or the role's permission for an action), and a handler that returns a page to render or
// a redirect (POST, redirect, GET: a reload never posts twice). An error thrown by a handler
// becomes a page that says what happened and what to do, with the status it deserves.

export interface PageCall<V extends Viewer | null> {
  cc: ConsoleContext;
  req: Request;
  res: Response;
  viewer: V;
  /** The CSRF token for this page's forms. */
  csrf(): string;
}

export type PageResult = PageView | { redirect: string; flash?: { kind: 'ok' | 'error' | 'info'; text: string } } | { done: true };

interface PageBase {
  method: 'get' | 'post';
  path: string;
}

export type PageDef = PageBase &
  ({ access: 'anyone'; handle(call: PageCall<Viewer | null>): Promise<PageResult> } | { access: Action; handle(call: PageCall<Viewer>): Promise<PageResult> });

export function definePage(def: PageDef): PageDef {
  return def;
}

// The error a handler throws on purpose is @dv/web's, shared with the lookup's pages.
export { PageError };

export const notFound = (what: string) => new PageError(404, 'Not found', `${what} does not exist, or it belongs to another account.`);

const ACCOUNT_ERROR_STATUS: Record<AccountError['code'], number> = { not_found: 404, conflict: 409, invalid: 400, limit: 409 };

function asPageError(err: unknown): PageError | null {
  if (err instanceof PageError) return err;
  if (err instanceof ApiError) return new PageError(err.status, err.status === 404 ? 'Not found' : 'That did not work', typeof err.detail === 'string' ? err.detail : err.code);
  if (err instanceof AccountError) return new PageError(ACCOUNT_ERROR_STATUS[err.code], 'That did not work', err.message);
  return null;
}

export function errorView(e: PageError): PageView {
  return { title: e.title, status: e.status, body: html`<h1>${e.title}</h1><p class="lead">${e.message}</p><p><a href="/app/">Back to the overview</a></p>` };
}

function finish(call: PageCall<Viewer | null>, result: PageResult): void {
  if ('done' in result) return;
  if ('redirect' in result) {
    if (result.flash) flashNext(call.req, call.res, result.flash);
    call.res.redirect(303, result.redirect);
    return;
  }
  sendPage(call.cc, call.req, call.res, call.viewer, result);
}

async function run(cc: ConsoleContext, def: PageDef, req: Request, res: Response): Promise<void> {
  const viewer = await loadViewer(cc, req, res);
  const call: PageCall<Viewer | null> = { cc, req, res, viewer, csrf: () => (res.locals.csrfToken as () => string)() };
  try {
    if (def.access === 'anyone') return finish(call, await def.handle(call));
    if (!viewer) {
      if (def.method === 'get') return void res.redirect(303, `/app/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
      throw new PageError(401, 'Signed out', 'Your session has ended, so nothing was changed. Sign in again and repeat what you were doing.');
    }
    if (!can(viewer.role, def.access)) throw new PageError(403, 'Not allowed', `Only an owner of ${viewer.account.name} can do this. Ask an owner of the account.`);
    finish(call, await (def.handle as (c: PageCall<Viewer>) => Promise<PageResult>)({ ...call, viewer }));
  } catch (err) {
    const known = asPageError(err);
    if (!known) throw err;
    sendPage(cc, req, res, viewer, errorView(known));
  }
}

export function mountPages(router: Router, cc: ConsoleContext, pages: readonly PageDef[]): void {
  for (const def of pages) {
    router[def.method](def.path, (req, res, next) => {
      run(cc, def, req, res).catch(next);
    });
  }
}
