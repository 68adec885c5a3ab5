export { TtlCache, type TtlCacheOptions } from './cache.ts';
export { DnsResolver, RESOLVER_DEFAULTS, type DnsResolverOptions, type ResolverStats } from './resolver.ts';
export { parseServer, parseServers, serversFromEnv, type UpstreamServer } from './servers.ts';
export {
  RR_TYPE,
  RR_TYPES,
  RCODE,
  isRrType,
  isDnsFailure,
  txtJoin,
  type Rcode,
  type Resolver,
  type ResolveResult,
  type Rr,
  type RrOf,
  type RrType,
} from './types.ts';
export { RESOLVER_SANITY_DEFAULTS, judgeCanaries, isBelieved, type CanaryAnswer, type SanityJudgement, type SanityState } from './sanity.ts';
export { ResolverSanity, SaneResolver, RESOLVER_UNRELIABLE, saneDnsResolver, resolverDependency, type ResolverSanityOptions, type SaneDns, type SaneDnsOptions } from './sanity-check.ts';
