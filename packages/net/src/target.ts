// SSRF-safe targets: a user-given URL, resolved, with every address vetted.
//
// Contract: `checkUrl` is the synchronous half (scheme, userinfo, port, IP literals; no DNS), for
// intake. `checkTarget` adds one resolution in which EVERY address must be public: one private
// answer among public ones refuses the target, since we cannot know which one a client library
// would pick. The vetted addresses travel with the result and `pinnedRequest` connects to them and
// nothing else, so a second, different DNS answer (rebinding) can never be used. Refusals are
// typed (`reason`, `permanent`); callers word them in their own error model.
import { isIP } from 'node:net';
import { NET_DEFAULTS } from './defaults.ts';
import { classifyAddress, type AddressRange } from './ranges.ts';
import { resolveWithin, systemResolver, type ResolvedAddress, type Resolver } from './resolve.ts';

export interface TargetOptions {
  /**
   * TESTS ONLY: loopback addresses become reachable, with http or https. Nothing else private ever
   * is, and plain http stays refused for every non-loopback address.
   */
  allowHttpLoopback?: boolean;
  resolve?: Resolver;
  resolveTimeoutMs?: number;
  maxUrlLength?: number;
}

export type RefusalReason = 'invalid_url' | 'scheme' | 'userinfo' | 'port' | 'forbidden_address' | 'unresolvable';

export interface RefusedTarget {
  ok: false;
  reason: RefusalReason;
  detail: string;
  /** True when retrying cannot help (the URL itself is unacceptable); false for DNS-dependent refusals. */
  permanent: boolean;
}

export interface ParsedTarget {
  ok: true;
  url: URL;
  /** Host name or IP without brackets: the Host header and TLS server name come from it. */
  hostname: string;
  port: number;
  /** Set when the URL names an IP address itself (no resolution happens). */
  literal: ResolvedAddress | null;
}

export interface CheckedTarget {
  ok: true;
  url: URL;
  hostname: string;
  port: number;
  /** Every address the name resolved to, all vetted: the connection goes to these only. */
  addresses: ResolvedAddress[];
}

const refuse = (reason: RefusalReason, detail: string, permanent = true): RefusedTarget => ({ ok: false, reason, detail, permanent });

function rangeAllowed(range: AddressRange, opts: TargetOptions): boolean {
  return range === 'public' || (range === 'loopback' && opts.allowHttpLoopback === true);
}

/**
 * Port rule: 443, or an unprivileged port (1024-65535). Well-known ports below 1024 host other
 * protocols (SMTP, SSH, Redis-ish admin ports…) and a request on a user's behalf has no business
 * there. Plain http (tests only) may also use 80.
 */
function portAllowed(port: number, protocol: string): boolean {
  return port === 443 || port >= 1024 || (protocol === 'http:' && port === 80);
}

/** Vets one address of `url`'s host: the range, then http only to loopback. */
function vetAddress(url: URL, address: string, opts: TargetOptions): { range: AddressRange; refusal: 'forbidden_address' | 'scheme' | null } {
  const range = classifyAddress(address);
  if (!rangeAllowed(range, opts)) return { range, refusal: 'forbidden_address' };
  if (url.protocol === 'http:' && range !== 'loopback') return { range, refusal: 'scheme' };
  return { range, refusal: null };
}

function parseUrl(input: string, opts: TargetOptions): URL | RefusedTarget {
  const maxLength = opts.maxUrlLength ?? NET_DEFAULTS.maxUrlLength;
  if (input.length > maxLength) return refuse('invalid_url', `the URL is longer than ${maxLength} characters`);
  // Control characters (CR/LF above all) are refused outright rather than trusting every later
  // consumer of the URL to strip them.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(input)) return refuse('invalid_url', 'the URL contains control characters');
  try {
    return new URL(input);
  } catch {
    return refuse('invalid_url', 'not an absolute URL');
  }
}

/** The synchronous half of the guard: everything that can be judged without DNS. */
export function checkUrl(input: string, opts: TargetOptions = {}): ParsedTarget | RefusedTarget {
  const url = parseUrl(input, opts);
  if (!(url instanceof URL)) return url;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && opts.allowHttpLoopback === true)) return refuse('scheme', 'only https URLs are accepted');
  if (url.username !== '' || url.password !== '') return refuse('userinfo', 'credentials in the URL are not accepted; authenticate with the signature');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!portAllowed(port, url.protocol)) return refuse('port', `port ${port} is not accepted (use 443 or 1024-65535)`);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (hostname === '') return refuse('invalid_url', 'the URL has no host');
  const family = isIP(hostname);
  if (family === 0) return { ok: true, url, hostname, port, literal: null };
  const { range, refusal } = vetAddress(url, hostname, opts);
  if (refusal === 'forbidden_address') return refuse(refusal, `${hostname} is a ${range} address`);
  if (refusal === 'scheme') return refuse(refusal, 'only https URLs are accepted');
  return { ok: true, url, hostname, port, literal: { address: hostname, family: family === 4 ? 4 : 6 } };
}

/** The whole guard: URL rules, then one resolution whose every answer must be allowed. */
export async function checkTarget(input: string, opts: TargetOptions = {}): Promise<CheckedTarget | RefusedTarget> {
  const parsed = checkUrl(input, opts);
  if (!parsed.ok) return parsed;
  const { url, hostname, port } = parsed;
  if (parsed.literal) return { ok: true, url, hostname, port, addresses: [parsed.literal] };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveWithin(opts.resolve ?? systemResolver, hostname, opts.resolveTimeoutMs ?? NET_DEFAULTS.resolveTimeoutMs);
  } catch (err) {
    return refuse('unresolvable', `${hostname} did not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, false);
  }
  if (addresses.length === 0) return refuse('unresolvable', `${hostname} has no addresses`, false);
  for (const a of addresses) {
    const { range, refusal } = vetAddress(url, a.address, opts);
    if (refusal === 'forbidden_address') return refuse(refusal, `${hostname} resolves to ${a.address}, a ${range} address`, false);
    if (refusal === 'scheme') return refuse(refusal, 'only https URLs are accepted');
  }
  return { ok: true, url, hostname, port, addresses };
}
