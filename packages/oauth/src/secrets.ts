import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// The OAuth credentials handed out, and how they are checked. Everything stored is a SHA-256 hash
// (hex, hashKey of @dv/accounts, as for API keys): a leaked database holds no usable code, token or
// client secret. Each service has its own prefixes (OAuthServerOptions.tokenPrefixes): a leaked
// token is recognisable to secret scanners and a service tells its token from an API key.

export type TokenKind = 'access' | 'refresh' | 'code';
export type TokenPrefixes = Record<TokenKind, string>;

export function newSecret(prefixes: TokenPrefixes, kind: TokenKind): string {
  return prefixes[kind] + randomBytes(32).toString('base64url');
}

/** Constant-time equality of two strings of any length (lengths are not secret here). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(code_verifier)) must equal the stored challenge. */
export function pkceS256Matches(verifier: string, challenge: string): boolean {
  // RFC 7636 §4.1: 43-128 characters of the unreserved set; anything else cannot match.
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return safeEqual(createHash('sha256').update(verifier).digest('base64url'), challenge);
}
