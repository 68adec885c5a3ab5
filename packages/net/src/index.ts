// @dv/net: address and name rules, once. Special-purpose address ranges (the SSRF deny list and
// the IANA registries), domain-name grammar, SSRF-safe targets (resolve, vet every address, pin),
// the HTTP(S) request to a pinned target, and the DNS record-type table. Everything public is here.
export { NET_DEFAULTS } from './defaults.ts';
export { classifyAddress, isLoopbackAddress, isSpecialPurposeIp, type AddressRange } from './ranges.ts';
export { normaliseIp } from './ip-text.ts';
export {
  MAX_LABEL_CHARS,
  MAX_NAME_CHARS,
  NON_PUBLIC_TLDS,
  nameShapeProblem,
  organizationalDomain,
  parseHostname,
  publicNameProblem,
  type HostnameCheck,
  type HostnameProblem,
  type NameShapeProblem,
  type PublicNameProblem,
} from './domain.ts';
export { systemResolver, type ResolvedAddress, type Resolver } from './resolve.ts';
export { checkTarget, checkUrl, type CheckedTarget, type ParsedTarget, type RefusalReason, type RefusedTarget, type TargetOptions } from './target.ts';
export { pinnedLookup } from './pinned-lookup.ts';
export { isRedirect, pinnedRequest, ResponseBodyError, type PinnedFailure, type PinnedRequestOptions, type PinnedResponse } from './request.ts';
export { CLASS_ANY, CLASS_IN, OPT_TYPE, QTYPE_ANY, RR_TYPE, RR_TYPES, isRrType, rrTypeName, type RrType } from './dns-types.ts';
