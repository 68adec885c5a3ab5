// Pure decisions of a session, apart from the I/O in session.ts: effective timeouts, the source
// address, which replies end the session, how many RCPTs fit after 452 4.5.3.
import type { ProbeSessionRequest } from '@dv/contracts';
import type { ProbeConfig } from './config.ts';

export interface Timeouts {
  connectMs: number;
  greetingMs: number;
  commandMs: number;
  sessionMs: number;
}

/** The node's defaults, overridden by the request's values, each capped by the node's maximum. */
export function effectiveTimeouts(requested: ProbeSessionRequest['timeouts'], config: ProbeConfig): Timeouts {
  const pick = (value: number | undefined, fallback: number, cap: number): number => Math.min(value ?? fallback, cap);
  return {
    connectMs: pick(requested?.connectMs, config.PROBE_CONNECT_TIMEOUT_MS, config.PROBE_MAX_CONNECT_TIMEOUT_MS),
    greetingMs: pick(requested?.greetingMs, config.PROBE_GREETING_TIMEOUT_MS, config.PROBE_MAX_GREETING_TIMEOUT_MS),
    commandMs: pick(requested?.commandMs, config.PROBE_COMMAND_TIMEOUT_MS, config.PROBE_MAX_COMMAND_TIMEOUT_MS),
    sessionMs: pick(requested?.sessionMs, config.PROBE_SESSION_TIMEOUT_MS, config.PROBE_MAX_SESSION_TIMEOUT_MS),
  };
}

export type SourceChoice = { ok: true; ip: string | undefined } | { ok: false; detail: string };

/**
 * The address to bind. A requested one must be ours (binding elsewhere would fail, and would mean
 * the scheduler's politeness state is about another node). Without one, the domain picks a fixed
 * address: greylisting keys on the client /24, so retries of a domain must come from the same place.
 */
export function chooseSourceIp(requested: string | null | undefined, ours: readonly string[], domain: string): SourceChoice {
  if (requested) {
    if (ours.length === 0 || ours.includes(requested)) return { ok: true, ip: ours.length === 0 ? undefined : requested };
    return { ok: false, detail: `source_ip ${requested} is not one of this node's PROBE_SOURCE_IPS` };
  }
  if (ours.length === 0) return { ok: true, ip: undefined };
  return { ok: true, ip: ours[hash(domain.toLowerCase()) % ours.length] };
}

function hash(text: string): number {
  // FNV-1a: stable across processes and releases, unlike anything seeded.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** RFC 3463 X.5.3 / "too many recipients": the server's per-session recipient limit was reached. */
export function isTooManyRecipients(code: number, enhanced: string | null, text: string): boolean {
  if (code !== 452 && code !== 451 && code !== 550 && code !== 552) return false;
  return enhanced?.endsWith('.5.3') === true || /too many recipients/i.test(text);
}

/**
 * The outcome when no MX address could be reached: `timeout` when every attempt timed out (or the
 * session deadline passed), as the scheduler caches a timing-out MX longer (scheduler MX_DOWN_TIMEOUT_MS: 15 min
 * instead of 2); `connect_failed` otherwise (refused, unreachable, no address). `mx_used` is null.
 */
export function unreachableOutcome(errors: readonly { ip: string | null; error: string }[], aborted: boolean): 'timeout' | 'connect_failed' {
  if (aborted) return 'timeout';
  const attempts = errors.filter((e) => e.ip !== null);
  return attempts.length > 0 && attempts.length === errors.length && attempts.every((e) => e.error.startsWith('timeout')) ? 'timeout' : 'connect_failed';
}

/**
 * `egress` when every MX address this session dialled failed on the node's own side (no source
 * address, no route out, a local firewall): the hosts were never asked, so the scheduler must
 * neither mark them down nor judge the addresses, and sends them through another node or IP.
 */
export function egressFault(dialled: number, localFailures: number): 'egress' | undefined {
  return dialled > 0 && localFailures >= dialled ? 'egress' : undefined;
}

/** EHLO refused with a permanent "unknown command"-style reply: retry with HELO (RFC 5321 §3.2). */
export function shouldFallBackToHelo(code: number): boolean {
  return code >= 500 && code < 600;
}

/** Accepted MX domain names: letters, digits, dots, hyphens, underscores; or an IP literal. */
export function parseMxHost(host: string): { kind: 'ip'; ip: string } | { kind: 'name'; name: string } | null {
  const h = host.trim().replace(/\.$/, '');
  const literal = /^\[(.+)\]$/.exec(h)?.[1] ?? h;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(literal) || /^[0-9a-fA-F:]+:[0-9a-fA-F:.]*$/.test(literal)) return { kind: 'ip', ip: literal };
  if (/^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*$/.test(h)) return { kind: 'name', name: h.toLowerCase() };
  return null;
}
