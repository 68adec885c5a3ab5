import type { Request, Response } from 'express';
import { activePortfolioKeyById } from '@dv/accounts';
import type { OAuthServer } from '@dv/oauth';
import { admitCaller, authenticate } from '../api/auth.ts';
import type { ApiCaller, ApiContext } from '../api/context.ts';
import { PortfolioError } from '../api/errors.ts';
import { MCP_SCOPE } from './oauth.ts';

// Who calls the connector: a portfolio key (as on /api/v1), or an OAuth access token of scope
// `mcp` made from one, resolved to that key on every call (the key revoked, the token fails at
// once on every replica). Then the same plan check and limits as the REST API. A 401 names the
// Bearer scheme and the protected-resource metadata, which is how MCP clients find the OAuth flow.

export async function authenticateConnector(ctx: ApiContext, oauth: OAuthServer, req: Request, res: Response): Promise<ApiCaller> {
  try {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !oauth.store.isAccessToken(m[1]!)) return await authenticate(ctx, req, res);
    const token = await oauth.store.findAccess(m[1]!);
    const found = token && token.scope === MCP_SCOPE ? await activePortfolioKeyById(ctx.db, token.key_id) : null;
    if (!found) throw new PortfolioError('invalid_api_key', 'The access token is not valid: it is wrong, expired or revoked, or the API key it was made from is revoked. Connect again.');
    return await admitCaller(ctx, res, found.account, found.key);
  } catch (err) {
    if (!(err instanceof PortfolioError) || err.status !== 401) throw err;
    throw new PortfolioError(err.code, err.message, { ...err.headers, 'WWW-Authenticate': oauth.bearerChallenge(req.path, err.code === 'invalid_api_key') });
  }
}
