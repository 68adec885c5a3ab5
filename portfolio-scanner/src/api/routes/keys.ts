import { z } from 'zod';
import { AccountError, createPortfolioKey, listPortfolioKeys, publicPortfolioKey, revokePortfolioKey } from '@dv/accounts';
import { MAX_ACTIVE_PORTFOLIO_KEYS } from '@dv/contracts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse, PortfolioError } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { apiKeySchema } from '../schemas.ts';

// Keys list, create, revoke (spec "API key"). The full key is in the create answer only.

const view = (k: Parameters<typeof publicPortfolioKey>[0]) => {
  const p = publicPortfolioKey(k);
  return { ...p, created_at: p.created_at.toISOString(), last_used_at: p.last_used_at?.toISOString() ?? null, expires_at: p.expires_at?.toISOString() ?? null };
};

export const listKeys = defineRoute({
  method: 'get',
  path: '/api/v1/keys/',
  operationId: 'list_keys',
  summary: 'List API keys (prefix only)',
  tags: ['keys'],
  responses: { '200': { description: 'Every key of the account, revoked ones too.', content: { 'application/json': { schema: okSchema('KeyList', z.array(apiKeySchema)) } } } },
  handle: async ({ ctx, caller }) => ok((await listPortfolioKeys(ctx.db, caller.account._id)).map(view)),
});

export const createKey = defineRoute({
  method: 'post',
  path: '/api/v1/keys/',
  operationId: 'create_key',
  summary: 'Create an API key (the full key is returned this once)',
  tags: ['keys'],
  body: z.object({ name: z.string().trim().min(1).max(100), expires_at: z.iso.datetime({ offset: true }).nullable().optional().meta({ description: 'Optional expiry (future).' }) }).meta({ id: 'CreateKeyRequest' }),
  responses: {
    '201': { description: 'The new key.', content: { 'application/json': { schema: okSchema('CreatedKey', apiKeySchema.extend({ key: z.string().meta({ description: 'The full key: shown once, never again.' }) })) } } },
    '400': errorResponse('validation_error: no name, or expires_at not in the future.'),
    '409': errorResponse(`key_limit_reached: the account already holds ${MAX_ACTIVE_PORTFOLIO_KEYS} active keys.`),
  },
  handle: async ({ ctx, caller, input }) => {
    try {
      const created = await createPortfolioKey(ctx.db, caller.account._id, input.body.name, { expiresAt: input.body.expires_at ? new Date(input.body.expires_at) : null });
      return ok({ ...view(created.record), key: created.key }, {}, 201);
    } catch (err) {
      if (err instanceof AccountError && err.code === 'limit') throw new PortfolioError('key_limit_reached', `${err.message}.`);
      if (err instanceof AccountError && err.code === 'invalid') throw new PortfolioError('validation_error', err.message);
      throw err;
    }
  },
});

export const revokeKey = defineRoute({
  method: 'delete',
  path: '/api/v1/keys/{id}/',
  operationId: 'revoke_key',
  summary: 'Revoke an API key (stops working at once)',
  tags: ['keys'],
  params: z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }),
  responses: { '200': { description: 'The revoked key.', content: { 'application/json': { schema: okSchema('RevokedKey', apiKeySchema) } } }, '404': errorResponse('not_found: no key with this id in the account.') },
  handle: async ({ ctx, caller, input }) => {
    const k = await revokePortfolioKey(ctx.db, caller.account._id, input.params.id, ctx.marks);
    if (!k) throw new PortfolioError('not_found', `No API key with id ${input.params.id} in this account.`);
    return ok(view(k));
  },
});
