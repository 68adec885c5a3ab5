import type { Request, Response } from 'express';
import type { Db } from 'mongodb';
import type { AuthAttemptLimiter, Logger } from '@dv/runtime';
import type { AuthMarks } from '@dv/accounts';
import type { Assets } from '@dv/web';

// What differs between the services that run this authorization server (docs/oauth.md): where
// they are reached, which keys a user pastes and how those are checked, the scope, the words on
// the consent page, the collections and the token prefixes. Everything else (DCR, PKCE, sealed
// consent, rotation, revocation, the RFC error shapes) is the same code for all of them.

/** One protected resource of the service, as a path under `baseUrl` ('' = the whole API). */
export interface ProtectedResource {
  path: string;
  name: string;
}

/** The outcome of checking a pasted key on the consent page. */
export type KeyCheck =
  | { ok: true; keyId: string; accountId: string }
  /** `wrongKey`: the key does not exist or is revoked (costs more on the per-address limiter). */
  | { ok: false; message: string; wrongKey: boolean };

export interface OAuthKeys {
  /** Shape check without a store read (the consent page answers `shapeHint` otherwise). */
  looksLikeKey: (presented: string) => boolean;
  /** Resolves a pasted key to its id and account, or why it is refused (shown to the user). */
  verify: (presented: string) => Promise<KeyCheck>;
  /** Whether the key a grant was made from still works (revoked key, inactive account: no). */
  isActive: (keyId: string) => Promise<boolean>;
}

/** A key a signed-in person may approve with: what the consent page names, never its secret. */
export interface ApprovableKey {
  id: string;
  name: string;
  prefix: string;
}

/**
 * The service's signed-in person on a consent request (OAuthServerOptions.sessionApproval): the
 * page offers "approve as <who> with key <name>" beside pasting a key.
 */
export interface SessionApproval {
  /** Who is signed in, as the page names them (their email address). */
  who: string;
  /**
   * A value only this session yields (an HMAC of its id under the service's secret; never the id):
   * sealed into the consent form, so approving needs the session the page was shown to.
   */
  binding: string;
  /** The keys offered, first the default; null when this person may not approve with the account's keys. */
  keys: ApprovableKey[] | null;
  /** Why no key is offered, in words (shown instead of the list). */
  note?: string;
  /**
   * Checks on the server, at the approval, that this session may approve with the key of this id
   * (the form's value is only a choice): the key is the account's, active, of a fitting mode.
   */
  approve(keyId: string): Promise<KeyCheck>;
}

export interface OAuthConsentText {
  productName: string;
  /** One sentence after "<client> asks to act with one of your API keys:". */
  whatItMayDo: string;
  keyLabel: string;
  keyPlaceholder: string;
  /** Shown when the pasted text is not a key at all. */
  shapeHint: string;
}

export interface OAuthLimits {
  /** Authorization codes are single-use; RFC 6749 §4.1.2 advises at most 10 min. */
  codeTtlSeconds: number;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  /** A registration not used for this long lapses (its tokens use renews it). */
  clientUnusedTtlSeconds: number;
  /** client_secret_expires_at of confidential clients; 0 = never. */
  clientSecretTtlSeconds: number;
  /** How long a consent page may be submitted. */
  consentTtlSeconds: number;
  maxRedirectUris: number;
  /** Dynamic client registrations per client address per hour. */
  registrationsPerHour: number;
}

export interface OAuthServerOptions {
  db: Db;
  log: Logger;
  /** What clients reach the service at, no trailing slash: issuer, endpoints, `iss` on redirects. */
  baseUrl: string;
  resources: ProtectedResource[];
  /** The one scope granted: what the token may do is what the key may do there. */
  scope: string;
  /** Linked from the metadata documents. */
  documentationUrl: string;
  /** HMAC key of the sealed consent request (at least 32 characters, the same on every replica). */
  sealSecret: string;
  collections: { clients: string; codes: string; tokens: string };
  /** Distinct per service, so a token is recognisable and never mistaken for another service's. */
  tokenPrefixes: { access: string; refresh: string; code: string };
  consent: OAuthConsentText;
  /**
   * The service's hashed assets, holding @dv/web's (loadAssets([WEB_ASSETS_DIR, …])), whose handler
   * the service mounts: the consent page links base.css and the favicon from them.
   */
  assets: Assets;
  keys: OAuthKeys;
  /**
   * The person signed in to the service on this request, if any and if the service offers it: the
   * consent page then lets them approve with one of their account's keys. Without it, or when it
   * answers null, the page asks for a pasted key only.
   */
  sessionApproval?: (req: Request, res: Response) => Promise<SessionApproval | null>;
  /** Per-address metering of the token endpoint and the consent form (they look credentials up). */
  attempts?: AuthAttemptLimiter;
  /** Revocation marks: every grant that ends stamps its token ids (OAuthStoreOptions.marks). */
  marks?: Pick<AuthMarks, 'mark'>;
  limits: OAuthLimits;
  /** The service's own 405 error (thrown to its error handler), as the route helper's MountOptions. */
  methodNotAllowed: (method: string, path: string, allow: string) => unknown;
}
