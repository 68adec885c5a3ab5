import { createHmac, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadAssets, WEB_ASSETS_DIR, type Assets } from '@dv/web';

// What the lookup's web pages share, built once per process: the assets (the shared base and the
// lookup's own styles, hashed and kept in memory) and the CSRF key.

export interface LookupWeb {
  assets: Assets;
  csrfSecret: Buffer;
}

const LOOKUP_ASSETS_DIR = fileURLToPath(new URL('../../assets/', import.meta.url));

export function createLookupWeb(secret: string | undefined): LookupWeb {
  return {
    assets: loadAssets([WEB_ASSETS_DIR, LOOKUP_ASSETS_DIR]),
    // Derived, not used as is: the key's one purpose here is the pages' CSRF tokens.
    csrfSecret: createHmac('sha256', secret ?? randomBytes(32)).update('lookup web csrf').digest(),
  };
}
