import { sourceLink } from '../envelope.ts';
import { checkRecord, checkTarget } from '../target.ts';
import { TOOL_BY_SLUG } from '../tools.ts';

// The home page's one search box, as a pure decision: what was typed → the permalink of the tool
// that answers it, or the reason it cannot be looked up, in words. A pasted SPF or DMARC record
// goes to validate; an email address to its domain; a URL to its host; a domain to the
// email-security overview (where a person starts); an IP address to the blacklist check.

export type SearchOutcome = { ok: true; path: string } | { ok: false; reason: string };

/** Searches longer than this are refused before parsing (a record for validate is the longest input). */
export const MAX_SEARCH_CHARS = 4_096;

const RECORD_START = /^"?v=(spf1|dmarc1)\b/i;

function permalink(slug: string, target: string): string {
  const spec = TOOL_BY_SLUG.get(slug);
  if (!spec) throw new Error(`no tool ${slug}`);
  return sourceLink('', spec, { target });
}

/** A URL's host, when the text is one (`https://example.com/path`); otherwise the text itself. */
function hostOfUrl(text: string): string {
  if (!/^https?:\/\//i.test(text)) return text;
  try {
    return new URL(text).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return text;
  }
}

export function searchDestination(raw: string, maxRecordChars: number): SearchOutcome {
  if (raw.length > MAX_SEARCH_CHARS) return { ok: false, reason: `That is ${raw.length} characters long; type a domain, an IP address, an email address or one record of at most ${maxRecordChars} characters.` };
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Type a domain (example.com), an IP address, an email address, or paste an SPF or DMARC record.' };
  if (RECORD_START.test(text)) {
    const record = checkRecord(text.replace(/^"|"$/g, ''), maxRecordChars);
    return record.ok ? { ok: true, path: `${permalink('validate', '')}?record=${encodeURIComponent(record.record)}` } : { ok: false, reason: record.reason };
  }
  const email = /^[^\s@]+@([^\s@]+)$/.exec(text);
  const candidate = email?.[1] ?? hostOfUrl(text);
  const checked = checkTarget(candidate, 'domain_or_ip');
  if (!checked.ok) return { ok: false, reason: checked.reason };
  return { ok: true, path: permalink(checked.isIp ? 'blacklist' : 'email-security', checked.target) };
}
