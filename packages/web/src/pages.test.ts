import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAssets } from './assets.ts';
import { contentSecurityPolicy, pageSecurityHeaders } from './csp.ts';
import { csrfProtection } from './csrf.ts';
import { html } from './html.ts';
import { renderPage, type Chrome } from './layout.ts';
import { WEB_ASSETS_DIR } from './index.ts';
import { postForm, submit } from './components.ts';

// A small app built the way the services build theirs: headers, a body parser, CSRF, a page.
const secret = Buffer.alloc(32, 7);
let base: string;
let server: ReturnType<ReturnType<typeof express>['listen']>;
const chrome: Chrome = { product: 'Test', homeHref: '/', nav: [{ href: '/', label: 'Home' }, { href: '/jobs', label: 'Jobs' }], assets: loadAssets([WEB_ASSETS_DIR]) };

beforeAll(async () => {
  const app = express();
  app.use(chrome.assets.handler);
  app.use(pageSecurityHeaders());
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  app.use(csrfProtection({ secret, sessionId: (req) => (req.headers['x-test-session'] as string | undefined) ?? undefined, reject: (_req, res, why) => void res.status(403).type('html').send(`refused: ${why}`) }));
  app.get('/', (req, res) => {
    const token = (res.locals.csrfToken as () => string)();
    res.type('html').send(renderPage(chrome, { title: `Hello <${String(req.query.name ?? '')}>`, path: '/', body: postForm('/act', token, submit('Go')) }));
  });
  app.post('/act', (_req, res) => void res.type('html').send('done'));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => void server?.close());

function formToken(page: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
}

describe('pages', () => {
  it('carry a strict CSP without unsafe-inline, and the other security headers', async () => {
    const res = await fetch(`${base}/?name=<script>`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(contentSecurityPolicy());
    expect(csp).not.toContain('unsafe');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    expect(page.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(page).toContain('<title>Hello &lt;&lt;script>> · Test</title>');
    expect(page).toMatch(/<link rel="stylesheet" href="\/assets\/base\.[0-9a-f]{10}\.css"\/>/);
    expect(page).toContain('<a href="/" aria-current="page">Home</a>');
    expect(page).not.toMatch(/<script>|style="/);
  });

  it('accept a form post with its token from this origin', async () => {
    const res = await fetch(`${base}/`);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie).toMatch(/^dv_csrf=/); // plain http on loopback: no __Host- prefix, no Secure
    const ok = await fetch(`${base}/act`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: base }, body: `_csrf=${encodeURIComponent(formToken(await res.text()))}` });
    expect(ok.status).toBe(200);
  });

  it('refuse a post without its token, with another browser\'s token, or from another site', async () => {
    const a = await fetch(`${base}/`);
    const cookieA = a.headers.get('set-cookie')!.split(';')[0]!;
    const tokenA = formToken(await a.text());
    const b = await fetch(`${base}/`);
    const cookieB = b.headers.get('set-cookie')!.split(';')[0]!;
    const post = (headers: Record<string, string>, body: string) => fetch(`${base}/act`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    const none = await post({ cookie: cookieA }, 'x=1');
    expect([none.status, await none.text()]).toEqual([403, 'refused: the form was sent without its security token']);
    expect((await post({ cookie: cookieB }, `_csrf=${encodeURIComponent(tokenA)}`)).status).toBe(403);
    expect((await post({ cookie: cookieA, 'sec-fetch-site': 'cross-site' }, `_csrf=${encodeURIComponent(tokenA)}`)).status).toBe(403);
    expect((await post({ cookie: cookieA, origin: 'https://evil.example' }, `_csrf=${encodeURIComponent(tokenA)}`)).status).toBe(403);
    expect((await post({ cookie: cookieA, origin: 'null' }, `_csrf=${encodeURIComponent(tokenA)}`)).status).toBe(403);
    // A signed-in session's token is bound to that session.
    const withSession = (sid: string) => ({ cookie: cookieA, 'x-test-session': sid });
    const sessionPage = await fetch(`${base}/`, { headers: withSession('s1') });
    const tokenS1 = formToken(await sessionPage.text());
    expect((await post(withSession('s1'), `_csrf=${encodeURIComponent(tokenS1)}`)).status).toBe(200);
    expect((await post(withSession('s2'), `_csrf=${encodeURIComponent(tokenS1)}`)).status).toBe(403);
  });

  it('render the shell with the person, flash messages as text and a skip link', () => {
    const out = renderPage(chrome, { title: 'Jobs', path: '/jobs/5', person: { email: '<b>me</b>@example.com', signOutAction: '/signout', csrf: 't' }, flash: [{ kind: 'error', text: '<img src=x onerror=alert(1)>' }], body: html`<h1>Jobs</h1>` });
    expect(out).toContain('<a class="skip" href="#main">Skip to content</a>');
    expect(out).toContain('<a href="/jobs" aria-current="page">Jobs</a>');
    expect(out).toContain('&lt;b>me&lt;/b>@example.com');
    expect(out).toContain('role="alert">&lt;img src=x onerror=alert(1)></p>');
  });
});
