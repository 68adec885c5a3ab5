import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { call } from '@dv/test-kit';

// The authorization-code flow as a client drives it over plain HTTP (registration, the consent
// form with a pasted key, PKCE, the token endpoint), for the package's tests and for each service
// that mounts the package (gateway/src/oauth): one place that knows the consent form's shape.

/** The redirect URI the flow registers; nothing listens there (redirects are read, not followed). */
export const TEST_REDIRECT = 'http://127.0.0.1:45999/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The sealed authorization request in a consent page's form. */
export function sealedFrom(html: string): string {
  const m = /name="request" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no consent form in: ${html.slice(0, 300)}`);
  return m[1]!;
}

/** GET without following redirects (the tests read the Location). */
export async function get(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

export interface OAuthFlow {
  /** Registers a public client for TEST_REDIRECT; `meta` overrides any field. */
  register(meta?: Record<string, unknown>): Promise<{ status: number; body: Record<string, string> }>;
  authorizeUrl(clientId: string, challenge: string, extra?: Record<string, string>): string;
  /** A form POST to `path`, redirects not followed. */
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** Runs the consent step with a pasted key; returns the code from the redirect (checked: TEST_REDIRECT, state, iss). */
  approve(clientId: string, challenge: string, key: string): Promise<string>;
  token(form: Record<string, string>, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, string> }>;
}

/** The flow against the server at `baseUrl`, read at each call (a test file's server starts in its beforeAll). */
export function oauthFlow(baseUrl: () => string): OAuthFlow {
  const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}): string => {
    const q = new URLSearchParams({ client_id: clientId, redirect_uri: TEST_REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1', ...extra });
    return `${baseUrl()}/oauth/authorize?${q}`;
  };
  const post = async (path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${baseUrl()}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });
  return {
    register: async (meta = {}) => call(baseUrl(), '/oauth/register', { body: { redirect_uris: [TEST_REDIRECT], client_name: 'Test <b>Agent</b>', token_endpoint_auth_method: 'none', ...meta } }),
    authorizeUrl,
    post,
    approve: async (clientId, challenge, key) => {
      const page = await get(authorizeUrl(clientId, challenge));
      expect(page.status).toBe(200);
      const res = await post('/oauth/authorize', { request: sealedFrom(await page.text()), api_key: key, decision: 'approve' });
      expect(res.status).toBe(303);
      const loc = new URL(res.headers.get('location')!);
      expect(`${loc.origin}${loc.pathname}`).toBe(TEST_REDIRECT);
      expect(loc.searchParams.get('state')).toBe('st-1');
      expect(loc.searchParams.get('iss')).toBe(baseUrl());
      return loc.searchParams.get('code')!;
    },
    token: async (form, headers = {}) => {
      const res = await post('/oauth/token', form, headers);
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    },
  };
}
