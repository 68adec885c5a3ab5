import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadAssets, WEB_ASSETS_DIR } from '@dv/web';
import { consentPage, errorPage, pageHeaders, redirectSource } from './consent-page.ts';
import { openRequest, sealRequest } from './consent-request.ts';
import { checkRedirectUri, checkResource, pickRedirectUri } from './policy.ts';
import { resourceMetadataUrl, wellKnownDocuments } from './metadata.ts';
import { newSecret, pkceS256Matches } from './secrets.ts';

// The pure parts of the OAuth flow: PKCE, the sealed consent request, the redirect and resource
// rules, and the page's escaping.

const REQ = { client_id: 'c1', redirect_uri: 'http://127.0.0.1:5000/cb', code_challenge: 'x'.repeat(43), state: 's', scope: null, resource: null };
const SECRET = 'k'.repeat(40);
const ASSETS = loadAssets([WEB_ASSETS_DIR]);

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

describe('the consent page of a signed-in person', () => {
  const TEXT = { productName: 'P', whatItMayDo: 'w', keyLabel: 'Key', keyPlaceholder: 'k_…', shapeHint: 'h' };
  const base = { text: TEXT, assets: ASSETS, clientName: 'C', redirectUri: 'http://127.0.0.1:5000/cb', sealed: 'abc.def' };

  it('seals the session binding and opens it again; an unbound page has none', () => {
    expect(openRequest(SECRET, sealRequest(SECRET, { ...REQ, session: 'bind-1' }, 600))).toEqual({ ...REQ, session: 'bind-1' });
    expect(openRequest(SECRET, sealRequest(SECRET, REQ, 600))).not.toHaveProperty('session');
  });

  it('offers the keys as text, the first chosen, beside the paste form; a member is told an owner must approve', () => {
    const evil = '<script>alert(1)</script>';
    const page = consentPage({ ...base, session: { who: `a${evil}@x.test`, keys: [{ id: 'k1"><b>', name: evil, prefix: 'dv_live_ab' }, { id: 'k2', name: 'two', prefix: 'dv_live_cd' }] } });
    expect(page).not.toContain(evil);
    expect(page).toContain('<option value="k1&quot;>&lt;b>" selected>&lt;script>alert(1)&lt;/script> (dv_live_ab…)</option>');
    expect(page).toContain('Approve as a&lt;script>alert(1)&lt;/script>@x.test with this key');
    expect(page).toContain('id="api_key"');
    const one = consentPage({ ...base, session: { who: 'o@x.test', keys: [{ id: 'k1', name: 'CRM', prefix: 'p' }] } });
    expect(one).toContain('Approve as o@x.test with key CRM');
    const member = consentPage({ ...base, session: { who: 'm@x.test', keys: null } });
    expect(member).toContain('Only an owner of the account can approve');
    expect(member).not.toContain('name="key_id"');
    const none = consentPage({ ...base, session: { who: 'o@x.test', keys: [], note: 'No <live> key.' } });
    expect(none).toContain('No &lt;live> key.');
    expect(consentPage(base)).not.toContain('Signed in as');
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
  it('accepts this service (its base or a protected resource) as the resource, nothing else', () => {
    const paths = ['', '/mcp'];
    expect(checkResource('https://api.example.com', paths, undefined)).toBeNull();
    expect(checkResource('https://api.example.com', paths, 'https://api.example.com/mcp/')).toBe('https://api.example.com/mcp');
    expect(checkResource('https://api.example.com', ['/mcp'], 'https://api.example.com')).toBe('https://api.example.com');
    expect(() => checkResource('https://api.example.com', paths, 'https://other.example.com/mcp')).toThrow(/resource must be/);
    expect(() => checkResource('https://api.example.com', paths, 'https://api.example.com/other')).toThrow(/resource must be/);
  });
});

describe('discovery', () => {
  const o = { baseUrl: 'https://api.example.com', scope: 'mcp', documentationUrl: 'https://api.example.com/docs' };
  it('serves one protected-resource document per resource, and the server metadata at its place and under each resource', () => {
    const docs = wellKnownDocuments(o, [{ path: '', name: 'API' }, { path: '/mcp', name: 'MCP' }]);
    expect(Object.keys(docs).sort()).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']);
    expect(docs['/.well-known/oauth-protected-resource/mcp']).toMatchObject({ resource: 'https://api.example.com/mcp', resource_name: 'MCP', scopes_supported: ['mcp'] });
  });
  it('points a 401 at the most specific resource of the request path', () => {
    const both = [{ path: '', name: 'API' }, { path: '/mcp', name: 'MCP' }];
    expect(resourceMetadataUrl(o.baseUrl, both, '/mcp')).toBe('https://api.example.com/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl(o.baseUrl, both, '/v1/account')).toBe('https://api.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl(o.baseUrl, both, '/mcpx')).toBe('https://api.example.com/.well-known/oauth-protected-resource');
  });
});

describe('credentials and the page', () => {
  it('prefixes each credential with its service\'s prefix', () => {
    const prefixes = { access: 'a_', refresh: 'r_', code: 'c_' };
    expect(newSecret(prefixes, 'access')).toMatch(/^a_[A-Za-z0-9_-]{43}$/);
    expect(newSecret(prefixes, 'code').startsWith('c_')).toBe(true);
    expect(newSecret(prefixes, 'access')).not.toBe(newSecret(prefixes, 'access'));
  });
  it('escapes every value and limits form posts to the client redirect origin', () => {
    const text = { productName: 'P<', whatItMayDo: 'read <b>', keyLabel: 'Key', keyPlaceholder: 'k"', shapeHint: 'x' };
    const html = consentPage({ text, assets: ASSETS, clientName: '"><script>alert(1)</script>', redirectUri: 'https://a.example/cb?x=<y>', sealed: 'a"b' });
    expect(html).not.toContain('<script');
    expect(html).toContain('<title>Connect &quot;>&lt;script>alert(1)&lt;/script> to P&lt;</title>');
    expect(html).toContain('<em>&quot;>&lt;script>alert(1)&lt;/script></em>');
    expect(html).toContain('read &lt;b>');
    expect(html).toContain('<code>https://a.example/cb?x=&lt;y></code>');
    expect(html).toContain('placeholder="k&quot;"');
    expect(html).toContain('value="a&quot;b"');
    // Only the service's own hashed stylesheet: nothing inline for the strict CSP to refuse.
    expect(html).toContain(`<link rel="stylesheet" href="${ASSETS.url('base.css')}"/>`);
    expect(html).not.toMatch(/<style|style=/);
    const error = errorPage(ASSETS, 'P<', 'No <b>client</b>.');
    expect(error).toContain('role="alert">No &lt;b>client&lt;/b>.</p>');
    expect(error).toContain('<title>P&lt;: authorization failed</title>');
    const csp = pageHeaders([redirectSource('https://a.example:8443/cb')])['Content-Security-Policy']!;
    expect(csp).toContain("form-action 'self' https://a.example:8443;");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // A web client's popup keeps its opener through the redirect back.
    expect(pageHeaders([])).not.toHaveProperty('Cross-Origin-Opener-Policy');
    expect(redirectSource('https://a.example:8443/cb')).toBe('https://a.example:8443');
    expect(redirectSource('cursor://x/cb')).toBe('cursor:');
  });
});
