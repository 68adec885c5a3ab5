import { decodeQuotedPrintable } from '@dv/notify/testing';

// Helpers of the web pages' tests: the form's CSRF token, a browser's cookie jar, and the key
// link out of a captured verification email.

export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export const formToken = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** Cookies a response sets, as a Cookie header merged over `jar`. */
export function withCookies(jar: string, res: Response): string {
  const map = new Map(jar ? jar.split('; ').map((c) => c.split('=') as [string, string]) : []);
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [name, ...rest] = pair!.split('=');
    map.set(name!, rest.join('='));
  }
  return [...map].filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join('; ');
}

/** The verification link in a captured message, moved onto the test server's address. */
export function keyLinkIn(raw: string, serverUrl: string): string {
  const decoded = decodeQuotedPrintable(raw);
  const match = /https?:\/\/[^\s"<>]+\/v1\/keys\/verify\?token=[A-Za-z0-9_-]{43}/.exec(decoded);
  if (!match) throw new Error(`no link in:\n${decoded}`);
  const link = new URL(match[0]);
  return `${serverUrl}${link.pathname}${link.search}`;
}
