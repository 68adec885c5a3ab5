import { InvalidClientMetadataError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

// What we accept from OAuth clients, as pure rules.

// Schemes a redirect may never use: they run code or read local data in the user's browser.
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'filesystem:']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A registered redirect URI must be https, http on a loopback address (native apps, RFC 8252
 * §7.3), or a private-use scheme (RFC 8252 §7.1, e.g. `cursor://…`); never with a fragment.
 */
export function checkRedirectUri(raw: string): void {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InvalidClientMetadataError(`redirect_uri ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
  }
  if (u.hash || raw.includes('#')) throw new InvalidClientMetadataError('a redirect_uri must not contain a fragment');
  if (FORBIDDEN_SCHEMES.has(u.protocol)) throw new InvalidClientMetadataError(`redirect_uri scheme ${u.protocol} is not allowed`);
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname)) throw new InvalidClientMetadataError('http redirect URIs are allowed only on loopback (127.0.0.1, [::1], localhost); use https');
  if (/[\r\n]/.test(raw)) throw new InvalidClientMetadataError('a redirect_uri must not contain line breaks');
}

/**
 * The redirect URI an authorization request uses: exactly one of the registered strings (no port
 * or path relaxation, unlike RFC 8252's loopback allowance), or the only one when it is omitted.
 */
export function pickRedirectUri(registered: readonly string[], requested: string | undefined): string | null {
  if (requested === undefined) return registered.length === 1 ? registered[0]! : null;
  return registered.includes(requested) ? requested : null;
}

/** RFC 8707 resource indicator: absent, or this service (its base or one of its protected resources). */
export function checkResource(baseUrl: string, resourcePaths: readonly string[], resource: string | undefined | null): string | null {
  if (resource === undefined || resource === null || resource === '') return null;
  const strip = (s: string) => s.replace(/\/+$/, '');
  const ok = [...new Set([baseUrl, ...resourcePaths.map((p) => `${baseUrl}${p}`)].map(strip))];
  if (!ok.includes(strip(resource))) throw new InvalidTargetError(`resource must be ${ok.join(' or ')}`);
  return strip(resource);
}
