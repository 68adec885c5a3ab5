import type { Express } from 'express';
import type { Db } from 'mongodb';
import { ensureCollections } from '@dv/runtime';
import type { LookupContext } from './context.ts';
import { LOOKUP_COLLECTIONS } from './keys/store.ts';
import { ROUTES } from './routes/index.ts';
import { mountRoutes } from './routes/route.ts';
import { mountLookupWeb, mountLookupWebNotFound } from './web/mount.ts';

/**
 * Mounts the lookup service (its web pages, then its API) on an app made by the runtime's createHttpApp (health, readiness,
 * metrics, JSON body parsing, `trust proxy` from TRUSTED_PROXIES); the runtime's finishHttpApp adds the problem+json 404 and error
 * handlers after it. Kept apart from main.ts so tests can run the service in-process.
 */
export async function mountLookup(app: Express, ctx: LookupContext, db: Db): Promise<void> {
  await ensureCollections(db, Object.values(LOOKUP_COLLECTIONS));
  // The pages first: GET / is the home page for a browser and the JSON index for everyone else.
  mountLookupWeb(app, ctx);
  mountRoutes(app, ctx, ROUTES);
  mountLookupWebNotFound(app, ctx);
}
