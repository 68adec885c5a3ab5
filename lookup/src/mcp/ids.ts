import type { ToolName } from '../engine.ts';
import { checkTarget } from '../target.ts';
import { TOOL_BY_NAME, TOOL_BY_SLUG, type ToolSpec } from '../tools.ts';

// The deep-research helpers' vocabulary: `search` finds the domain in a question and answers
// result ids `<tool>:<domain>`; `fetch` runs the lookup behind such an id.

/** The lookups `search` proposes for a domain (spec: DNS, email security, DMARC, WHOIS). */
export const SEARCH_TOOLS: readonly ToolName[] = ['dns_lookup', 'email_security_check', 'dmarc_check', 'whois_lookup'];

export type FoundTarget = { target: string; isIp: boolean };

/**
 * The first domain or IP in free text: a bare domain, a URL's host, an email's domain, or an IP.
 * Words that only look like names (`e.g.`, `i.e.`) are skipped by asking for a top-level label of
 * at least two letters.
 */
export function findTarget(text: string): FoundTarget | undefined {
  for (const raw of text.slice(0, 2_000).split(/[\s,;()<>"'`|]+/)) {
    let token = raw.replace(/^[[{]+|[\]}?!:.…]+$/g, '');
    if (token === '') continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token)) {
      try {
        token = new URL(token).hostname.replace(/^\[|\]$/g, '');
      } catch {
        continue;
      }
    }
    if (token.includes('@')) token = token.slice(token.lastIndexOf('@') + 1);
    token = token.split('/')[0] ?? '';
    const checked = checkTarget(token, 'domain_or_ip');
    if (!checked.ok) continue;
    if (!checked.isIp && !/\.[a-z][a-z0-9-]*[a-z0-9]$|\.xn--[a-z0-9-]+$/.test(checked.target)) continue;
    return { target: checked.target, isIp: checked.isIp };
  }
  return undefined;
}

export function resultId(tool: ToolName, target: string): string {
  return `${tool}:${target}`;
}

/** `<tool>:<target>`; the tool may also be given by its REST slug (`dns:example.com`). IPv6 keeps its colons. */
export function parseResultId(id: string): { spec: ToolSpec; target: string } | undefined {
  const colon = id.indexOf(':');
  if (colon <= 0) return undefined;
  const name = id.slice(0, colon).trim().toLowerCase();
  const spec = TOOL_BY_NAME.get(name as ToolName) ?? TOOL_BY_SLUG.get(name);
  if (!spec || spec.target === 'record') return undefined;
  return { spec, target: id.slice(colon + 1).trim() };
}
