import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { activePortfolioKeyById, createAccount, createPortfolioKey, isPortfolioKeyShape, lookupPortfolioKey, setPortfolioPlan } from '@dv/accounts';
import { createLogger, type AuthAttemptLimiter, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { loadAssets, WEB_ASSETS_DIR } from '@dv/web';
import { OAuthServer } from '../server.ts';

// One OAuthServer on a bare express app over the run's real MongoDB (a database of its own),
// with portfolio keys (svc_live_) as the keys users paste, and a protected resource at /mcp that
// answers who the bearer token acts as, or the 401 with the Bearer challenge a client follows.

export interface OAuthHarness {
  url: string;
  db: MongoDependency['db'];
  server: OAuthServer;
  /** A new account with one key. */
  account: () => Promise<{ accountId: string; key: string }>;
  close: () => Promise<void>;
}

class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, headers: Record<string, string> = {}) {
    super(code);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** `attempts`: the per-address limiter of the token endpoint and the consent form (none by default). */
export async function startOAuthHarness(label: string, opts: { attempts?: AuthAttemptLimiter } = {}): Promise<OAuthHarness> {
  const mongo = await isolatedMongo(label);
  const db = mongo.db;
  const log = createLogger('oauth-test', 'silent');
  const app = express();
  const assets = loadAssets([WEB_ASSETS_DIR]);
  app.use(assets.handler);
  const listener: Server = createServer(app);
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const addr = listener.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const server = new OAuthServer({
    db,
    log,
    baseUrl: url,
    resources: [{ path: '/mcp', name: 'Test MCP server' }],
    scope: 'mcp',
    documentationUrl: `${url}/docs`,
    sealSecret: randomBytes(32).toString('hex'),
    collections: { clients: 'test_oauth_clients', codes: 'test_oauth_codes', tokens: 'test_oauth_tokens' },
    tokenPrefixes: { access: 'tst_oat_', refresh: 'tst_ort_', code: 'tst_oac_' },
    assets,
    consent: { productName: 'Test service', whatItMayDo: 'read your test data.', keyLabel: 'Test key', keyPlaceholder: 'svc_live_…', shapeHint: 'Paste a test key: it starts with svc_live_.' },
    keys: {
      looksLikeKey: isPortfolioKeyShape,
      verify: async (presented) => {
        const r = await lookupPortfolioKey(db, presented);
        return r.ok ? { ok: true, keyId: r.key._id, accountId: r.account._id } : { ok: false, message: 'The key is not valid: it is wrong, revoked or expired.', wrongKey: true };
      },
      isActive: async (keyId) => (await activePortfolioKeyById(db, keyId)) !== null,
    },
    limits: { codeTtlSeconds: 60, accessTtlSeconds: 3600, refreshTtlSeconds: 86_400, clientUnusedTtlSeconds: 86_400, clientSecretTtlSeconds: 0, consentTtlSeconds: 600, maxRedirectUris: 10, registrationsPerHour: 1_000 },
    attempts: opts.attempts,
    methodNotAllowed: (_method, _path, allow) => new HttpError(405, 'method_not_allowed', { Allow: allow }),
  });
  server.mount(app);
  app.all('/mcp', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const token = m && server.store.isAccessToken(m[1]!) ? await server.store.findAccess(m[1]!) : null;
      const key = token ? await activePortfolioKeyById(db, token.key_id) : null;
      if (!token || !key) throw new HttpError(401, 'unauthorized', { 'WWW-Authenticate': server.bearerChallenge(req.path, m !== null) });
      res.json({ account_id: key.account._id, key_id: key.key._id, scope: token.scope });
    } catch (err) {
      next(err);
    }
  });
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, 'not_found')));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err instanceof HttpError ? err : new HttpError(500, 'internal_error');
    res.status(e.status).set(e.headers).json({ code: e.code });
  });
  let n = 0;
  return {
    url,
    db,
    server,
    account: async () => {
      n++;
      const acc = await createAccount(db, { name: `o${n}`, email: `o${n}-${randomBytes(3).toString('hex')}@example.com`, plan: 'business' });
      await setPortfolioPlan(db, acc._id, 'enterprise');
      const { key } = await createPortfolioKey(db, acc._id, 'test');
      return { accountId: acc._id, key };
    },
    close: async () => {
      await new Promise<void>((r) => listener.close(() => r()));
      await db.dropDatabase();
      await mongo.close();
    },
  };
}
