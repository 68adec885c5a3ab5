// What the admin CLI (infra's lookup-key:create and lookup-quota:reset) needs of the lookup service:
// its free-key store and the daily quota limiters' names and subjects (@dv/lookup/admin).
export { QUOTA_SUBJECTS } from './caller.ts';
export { QUOTA_LIMITER_NAMES } from './context.ts';
export { LOOKUP_DEFAULTS } from './defaults.ts';
export { FreeKeyStore, LOOKUP_COLLECTIONS, ownerOf } from './keys/store.ts';
