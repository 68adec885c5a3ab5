import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { consentPage, escapeHtml, redirectSource } from './consent-page.ts';
import { openRequest, sealRequest } from './consent-request.ts';
import { checkRedirectUri, checkResource, pickRedirectUri } from './policy.ts';
import { isAccessToken, newSecret, pkceS256Matches } from './secrets.ts';

// The pure parts of the OAuth flow: PKCE, the sealed consent request, the redirect and resource
// rules, and the page's escaping.

const REQ = { client_id: 'c1', redirect_uri: 'http://127.0.0.1:5000/cb', code_challenge: 'x'.repeat(43), state: 's', scope: null, resource: null };
const SECRET = 'k'.repeat(40);

describe('PKCE S256', () => {
  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  it('matches only the verifier the challenge was made from', () => {
    expect(pkceS256Matches(verifier, challenge)).toBe(true);
    expect(pkceS256Matches('w'.repeat(50), challenge)).toBe(false);
  });
  it('refuses verifiers outside RFC 7636 (length, alphabet)', () => {
    const short = 'v'.repeat(42);
    expect(pkceS256Matches(short, createHash('sha256').update(short).digest('base64url'))).toBe(false);
    const odd = `${'v'.repeat(50)}!`;
    expect(pkceS256Matches(odd, createHash('sha256').update(odd).digest('base64url'))).toBe(false);
  });
});

describe('the sealed consent request', () => {
  it('opens what it sealed, until it expires', () => {
    const sealed = sealRequest(SECRET, REQ, 600, 1_000_000);
    expect(openRequest(SECRET, sealed, 1_000_000)).toEqual(REQ);
    expect(openRequest(SECRET, sealed, 1_000_000 + 601_000)).toBeNull();
  });
  it('refuses another secret, an altered payload and junk', () => {
    const sealed = sealRequest(SECRET, REQ, 600);
    expect(openRequest('z'.repeat(40), sealed)).toBeNull();
    const [, sig] = sealed.split('.');
    const altered = Buffer.from(JSON.stringify({ ...REQ, redirect_uri: 'https://evil.example/', exp: 9e9 })).toString('base64url');
    expect(openRequest(SECRET, `${altered}.${sig}`)).toBeNull();
    for (const junk of [undefined, 42, '', 'a.b.c', '.', 'x'.repeat(9_000)]) expect(openRequest(SECRET, junk)).toBeNull();
  });
});

describe('redirect and resource rules', () => {
  it.each(['https://app.example.com/cb', 'http://127.0.0.1:3000/cb', 'http://localhost/cb', 'http://[::1]:9/cb', 'cursor://anysphere.cursor-retrieval/oauth/callback'])('accepts %s', (uri) => {
    expect(() => checkRedirectUri(uri)).not.toThrow();
  });
  it.each(['http://example.com/cb', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'https://a.example/cb#frag', 'not a url'])('refuses %s', (uri) => {
    expect(() => checkRedirectUri(uri)).toThrow();
  });
  it('matches redirect URIs exactly', () => {
    const reg = ['http://127.0.0.1:5000/cb'];
    expect(pickRedirectUri(reg, 'http://127.0.0.1:5000/cb')).toBe(reg[0]);
    expect(pickRedirectUri(reg, 'http://127.0.0.1:5001/cb')).toBeNull();
    expect(pickRedirectUri(reg, 'http://127.0.0.1:5000/cb/')).toBeNull();
    expect(pickRedirectUri(reg, undefined)).toBe(reg[0]);
    expect(pickRedirectUri([...reg, 'https://b.example/cb'], undefined)).toBeNull();
  });
  it('accepts this gateway as the resource, nothing else', () => {
    expect(checkResource('https://api.example.com', undefined)).toBeNull();
    expect(checkResource('https://api.example.com', 'https://api.example.com/mcp/')).toBe('https://api.example.com/mcp');
    expect(() => checkResource('https://api.example.com', 'https://other.example.com/mcp')).toThrow(/resource must be/);
  });
});

describe('credentials and the page', () => {
  it('tells tokens from keys by prefix', () => {
    expect(isAccessToken(newSecret('access'))).toBe(true);
    expect(isAccessToken(newSecret('refresh'))).toBe(false);
    expect(isAccessToken('dv_live_abc_def')).toBe(false);
  });
  it('escapes every value and limits form posts to the client redirect origin', () => {
    const html = consentPage({ productName: 'P', clientName: '"><script>alert(1)</script>', redirectUri: 'https://a.example/cb?x=<y>', sealed: 'a"b' });
    expect(html).not.toContain('<script>');
    expect(html).toContain('value="a&quot;b"');
    expect(escapeHtml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&#39;');
    expect(redirectSource('https://a.example:8443/cb')).toBe('https://a.example:8443');
    expect(redirectSource('cursor://x/cb')).toBe('cursor:');
  });
});
