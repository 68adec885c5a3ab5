// The webhook SSRF guard is @dv/net's (https only, no userinfo, allowed ports, every resolved
// address public, the vetted addresses pinned for the POST); this module names it for notify's
// own code, its tests and its public surface.
export {
  checkTarget,
  checkUrl,
  systemResolver,
  type CheckedTarget,
  type ParsedTarget,
  type RefusalReason,
  type RefusedTarget,
  type ResolvedAddress,
  type Resolver,
  type TargetOptions,
} from '@dv/net';
