import type { Db } from 'mongodb';
import { hashKey, type AuthMarks } from '@dv/accounts';
import { newId } from '@dv/contracts';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { newSecret, type TokenPrefixes } from './secrets.ts';

// Clients, authorization codes and tokens of the OAuth connector flow (docs/oauth.md), in MongoDB
// so every replica sees the same grants; each service has its own three collections, so a token
// of one service is unknown to another. _id is the SHA-256 of the secret for codes and
// tokens (hashKey of @dv/accounts, as for API keys); a client's secret is stored as a hash beside
// its public registration.

export interface OAuthTtls {
  codeSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
  clientUnusedSeconds: number;
}

export interface ClientDoc extends Omit<OAuthClientInformationFull, 'client_secret'> {
  _id: string;
  client_secret_hash?: string;
  expires_at: Date;
}

interface CodeDoc {
  _id: string;
  grant_id: string;
  client_id: string;
  key_id: string;
  account_id: string;
  code_challenge: string;
  redirect_uri: string;
  resource: string | null;
  scope: string | null;
  used_at: Date | null;
  expires_at: Date;
}

export interface TokenDoc {
  _id: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  key_id: string;
  account_id: string;
  resource: string | null;
  scope: string | null;
  created_at: Date;
  expires_at: Date;
  /** Refresh tokens: when it was rotated away (kept until it expires, so a replay is recognised). */
  used_at?: Date | null;
}

export interface NewCode {
  clientId: string;
  keyId: string;
  accountId: string;
  codeChallenge: string;
  redirectUri: string;
  resource: string | null;
  scope: string | null;
}

export interface OAuthStoreOptions {
  collections: { clients: string; codes: string; tokens: string };
  tokenPrefixes: TokenPrefixes;
  ttl: OAuthTtls;
  /**
   * Revocation marks (@dv/accounts): a grant's token ids are stamped when it ends, before the
   * request that ended it answers, so a resource server that remembers callers refuses its tokens
   * on every replica at once, without waiting for its change stream.
   */
  marks?: Pick<AuthMarks, 'mark'>;
}

export class OAuthStore {
  private readonly db: Db;
  private readonly ttl: OAuthTtls;
  private readonly names: OAuthStoreOptions['collections'];
  private readonly prefixes: TokenPrefixes;
  private readonly marks: Pick<AuthMarks, 'mark'> | undefined;

  constructor(db: Db, opts: OAuthStoreOptions) {
    this.db = db;
    this.marks = opts.marks;
    this.ttl = opts.ttl;
    this.names = opts.collections;
    this.prefixes = opts.tokenPrefixes;
  }

  /** An access token of this service by its prefix (no store read): anything else is a key or junk. */
  isAccessToken(presented: string): boolean {
    return presented.startsWith(this.prefixes.access);
  }

  /** The collection of tokens (a resource server watches its deletions to drop remembered callers). */
  get tokensCollection(): string {
    return this.names.tokens;
  }

  private clients() {
    return this.db.collection<ClientDoc>(this.names.clients);
  }
  private codes() {
    return this.db.collection<CodeDoc>(this.names.codes);
  }
  private tokens() {
    return this.db.collection<TokenDoc>(this.names.tokens);
  }

  async saveClient(info: OAuthClientInformationFull): Promise<void> {
    const { client_secret: secret, ...rest } = info;
    const doc: ClientDoc = { ...rest, _id: info.client_id, expires_at: this.clientExpiry() };
    if (secret) doc.client_secret_hash = hashKey(secret);
    await this.clients().insertOne(doc);
  }

  async getClient(clientId: string): Promise<ClientDoc | null> {
    if (clientId.length > 200) return null;
    return this.clients().findOne({ _id: clientId, expires_at: { $gt: new Date() } });
  }

  async createCode(c: NewCode): Promise<string> {
    const code = newSecret(this.prefixes, 'code');
    await this.codes().insertOne({
      _id: hashKey(code),
      grant_id: newId('grant'),
      client_id: c.clientId,
      key_id: c.keyId,
      account_id: c.accountId,
      code_challenge: c.codeChallenge,
      redirect_uri: c.redirectUri,
      resource: c.resource,
      scope: c.scope,
      used_at: null,
      expires_at: new Date(Date.now() + this.ttl.codeSeconds * 1000),
    });
    return code;
  }

  /** The unused, unexpired code of this client, or invalid_grant. Does not consume it. */
  async peekCode(clientId: string, code: string): Promise<CodeDoc> {
    const doc = await this.codes().findOne({ _id: hashKey(code) });
    if (!doc || doc.client_id !== clientId || doc.expires_at <= new Date()) throw new InvalidGrantError('The authorization code is invalid or expired.');
    if (doc.used_at) {
      // RFC 6749 §4.1.2: a code used twice revokes what it granted (someone else holds a copy).
      await this.revokeGrant(doc.grant_id);
      throw new InvalidGrantError('The authorization code was already used; the tokens it granted are revoked.');
    }
    return doc;
  }

  /** Marks the code used (exactly one caller wins) and returns it. */
  async consumeCode(clientId: string, code: string): Promise<CodeDoc> {
    const doc = await this.codes().findOneAndUpdate(
      { _id: hashKey(code), client_id: clientId, used_at: null, expires_at: { $gt: new Date() } },
      { $set: { used_at: new Date() } },
      { returnDocument: 'after' },
    );
    if (!doc) {
      await this.peekCode(clientId, code); // throws the precise reason (and revokes on replay)
      throw new InvalidGrantError('The authorization code is invalid or expired.');
    }
    return doc;
  }

  /** A new access + refresh token pair for a grant. */
  async issue(g: { grantId: string; clientId: string; keyId: string; accountId: string; resource: string | null; scope: string | null }): Promise<OAuthTokens> {
    const access = newSecret(this.prefixes, 'access');
    const refresh = newSecret(this.prefixes, 'refresh');
    const now = Date.now();
    const base = { grant_id: g.grantId, client_id: g.clientId, key_id: g.keyId, account_id: g.accountId, resource: g.resource, scope: g.scope, created_at: new Date(now) };
    await this.tokens().insertMany([
      { ...base, _id: hashKey(access), kind: 'access', expires_at: new Date(now + this.ttl.accessSeconds * 1000) },
      { ...base, _id: hashKey(refresh), kind: 'refresh', expires_at: new Date(now + this.ttl.refreshSeconds * 1000) },
    ]);
    await this.clients().updateOne({ _id: g.clientId }, { $set: { expires_at: this.clientExpiry() } });
    return { access_token: access, token_type: 'Bearer', expires_in: this.ttl.accessSeconds, refresh_token: refresh, ...(g.scope ? { scope: g.scope } : {}) };
  }

  /**
   * Spends a refresh token (rotation: each works once; exactly one concurrent caller wins) and
   * returns what it held. A spent one is kept until it expires: presented again, someone else holds
   * a copy (RFC 9700 §4.14.2), so the whole grant ends, the newest tokens included.
   */
  async takeRefresh(clientId: string, refresh: string): Promise<TokenDoc> {
    const live = { _id: hashKey(refresh), kind: 'refresh' as const, client_id: clientId, expires_at: { $gt: new Date() } };
    const doc = await this.tokens().findOneAndUpdate({ ...live, used_at: null }, { $set: { used_at: new Date() } });
    if (doc) return doc;
    const spent = await this.tokens().findOne(live);
    if (spent) {
      await this.revokeGrant(spent.grant_id);
      throw new InvalidGrantError('The refresh token was already used; every token of this authorization is revoked. Connect again.');
    }
    throw new InvalidGrantError('The refresh token is invalid, expired or already used.');
  }

  /** The live access token, or null. */
  async findAccess(token: string): Promise<TokenDoc | null> {
    return this.tokens().findOne({ _id: hashKey(token), kind: 'access', expires_at: { $gt: new Date() } });
  }

  /** RFC 7009: revoking either token of a grant ends the whole grant. Unknown tokens are no error. */
  async revokeToken(clientId: string, token: string): Promise<void> {
    const doc = await this.tokens().findOne({ _id: hashKey(token), client_id: clientId });
    if (doc) await this.revokeGrant(doc.grant_id);
  }

  async revokeGrant(grantId: string): Promise<void> {
    const ids = this.marks ? (await this.tokens().find({ grant_id: grantId }, { projection: { _id: 1 } }).toArray()).map((t) => t._id) : [];
    await this.tokens().deleteMany({ grant_id: grantId });
    await this.marks?.mark(ids);
  }

  private clientExpiry(): Date {
    return new Date(Date.now() + this.ttl.clientUnusedSeconds * 1000);
  }
}
