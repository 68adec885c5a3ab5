import { createHmac } from 'node:crypto';
import { safeEqual } from './secrets.ts';

// The consent form carries the validated authorization request as one signed, expiring value, so
// the POST that approves it cannot swap the redirect_uri, the PKCE challenge or the client after
// they were checked, and an old consent page cannot be replayed. HMAC-SHA256 with the gateway's
// signing secret under its own label (domain separation from download links).

export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  scope: string | null;
  resource: string | null;
  /**
   * Set when the page was shown to a signed-in person of the service (OAuthServerOptions
   * sessionApproval): the session's binding, so approving as that person needs that same session.
   */
  session?: string;
}

const LABEL = 'dv-oauth-consent-v1:';

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(LABEL + payload).digest('base64url');
}

export function sealRequest(secret: string, req: AuthorizationRequest, ttlSeconds: number, nowMs = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...req, exp: Math.floor(nowMs / 1000) + ttlSeconds })).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The request, or null when the value is forged, damaged or expired. */
export function openRequest(secret: string, sealed: unknown, nowMs = Date.now()): AuthorizationRequest | null {
  if (typeof sealed !== 'string' || sealed.length > 8_000) return null;
  const [payload, sig, ...rest] = sealed.split('.');
  if (!payload || !sig || rest.length > 0 || !safeEqual(sig, mac(secret, payload))) return null;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AuthorizationRequest & { exp: number };
    if (typeof v.exp !== 'number' || v.exp * 1000 < nowMs) return null;
    const opened: AuthorizationRequest = { client_id: v.client_id, redirect_uri: v.redirect_uri, code_challenge: v.code_challenge, state: v.state, scope: v.scope, resource: v.resource };
    return typeof v.session === 'string' ? { ...opened, session: v.session } : opened;
  } catch {
    return null;
  }
}
