import type { IncomingHttpHeaders } from 'node:http';
import { keyMatches } from '@dv/accounts';
import { InvalidClientError, InvalidRequestError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { ClientDoc, OAuthStore } from './store.ts';

// Client authentication at the token and revocation endpoints (RFC 6749 §2.3): public clients
// (token_endpoint_auth_method "none") send only client_id; confidential ones add their secret in
// the body (client_secret_post) or an HTTP Basic header (client_secret_basic). The stored secret is
// a hash, compared in constant time; an expired secret fails like a wrong one.

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  // RFC 6749 §2.3.1: both parts are form-urlencoded inside the Basic credentials.
  const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)) };
  } catch {
    return null;
  }
}

export async function authenticateClient(store: OAuthStore, body: Record<string, unknown>, headers: IncomingHttpHeaders): Promise<ClientDoc> {
  const basic = basicCredentials(headers.authorization);
  const bodyId = typeof body.client_id === 'string' ? body.client_id : undefined;
  const bodySecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
  if (basic && (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.id))) {
    throw new InvalidRequestError('Use one client authentication method, not Basic and the body together.');
  }
  const clientId = basic?.id ?? bodyId;
  if (!clientId) throw new InvalidRequestError('client_id is required.');
  const client = await store.getClient(clientId);
  if (!client) throw new InvalidClientError('Unknown client_id (or the registration lapsed); register again.');
  const secret = basic?.secret ?? bodySecret;
  if (client.client_secret_hash) {
    if (secret === undefined) throw new InvalidClientError('This client must authenticate with its client_secret.');
    if (!keyMatches(secret, client.client_secret_hash)) throw new InvalidClientError('Invalid client_secret.');
    if (client.client_secret_expires_at && client.client_secret_expires_at < Date.now() / 1000) throw new InvalidClientError('The client_secret has expired; register again.');
  }
  return client;
}
