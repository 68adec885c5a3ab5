// Parsing raw SMTP replies and classifying them with the rule table (data/reply-rules.ts).
import { REPLY_RULES } from './data/reply-rules.ts';
import type { ClassifiedReply, ReplyRule, SmtpReply } from './reply-types.ts';

export interface ParsedReply {
  code: number;
  /** Enhanced status code (RFC 3463) when the first line carries one of the same class. */
  enhanced: string | null;
  /** The text of all lines, enhanced codes removed, joined by single spaces. */
  text: string;
}

const LINE = /^(\d{3})(?:[ -](.*))?$/;
const ENHANCED_PREFIX = /^#?([245]\.\d{1,3}\.\d{1,3})(?=\s|$)\s*/;
// qmail and others append the enhanced code: "sorry, no mailbox here by that name. (#5.1.1)"
const ENHANCED_SUFFIX = /\(#([245]\.\d{1,3}\.\d{1,3})\)\s*$/;

/**
 * Parses a raw reply: one line, several lines ("550-5.1.1 ...", "550 5.1.1 ...") as an array or
 * a CRLF/LF-separated string. Returns null when the first line has no three-digit code.
 */
export function parseReply(raw: string | readonly string[]): ParsedReply | null {
  const lines = (typeof raw === 'string' ? raw.split(/\r?\n/) : raw).map((l) => l.trim()).filter((l) => l.length > 0);
  const first = lines[0] !== undefined ? LINE.exec(lines[0]) : null;
  if (!first) return null;
  const code = first[1]!;
  let enhanced: string | null = null;
  const texts: string[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m || m[1] !== code) {
      texts.push(line);
      continue;
    }
    let text = m[2] ?? '';
    const e = ENHANCED_PREFIX.exec(text);
    if (e && e[1]![0] === code[0]) {
      enhanced ??= e[1]!;
      text = text.slice(e[0].length);
    }
    if (text.length > 0) texts.push(text);
  }
  const text = texts.join(' ').replace(/\s+/g, ' ').trim();
  if (enhanced === null) {
    const suffix = ENHANCED_SUFFIX.exec(text);
    if (suffix && suffix[1]![0] === code[0]) enhanced = suffix[1]!;
  }
  return { code: Number(code), enhanced, text };
}

function ruleMatches(rule: ReplyRule, code: string, enhanced: string | null, text: string): boolean {
  if (rule.code && !rule.code.test(code)) return false;
  if (rule.enhanced && (enhanced === null || !rule.enhanced.test(enhanced))) return false;
  if (rule.text && !rule.text.test(text)) return false;
  return true;
}

/** Classifies one reply with the first matching rule of the table. */
export function classifyReply(reply: SmtpReply, rules: readonly ReplyRule[] = REPLY_RULES): ClassifiedReply {
  const code = String(reply.code);
  let text = reply.text ?? '';
  let enhanced = reply.enhanced ?? null;
  if (enhanced === null) {
    const prefix = ENHANCED_PREFIX.exec(text);
    const suffix = ENHANCED_SUFFIX.exec(text);
    if (prefix && prefix[1]![0] === code[0]) {
      enhanced = prefix[1]!;
      text = text.slice(prefix[0].length);
    } else if (suffix && suffix[1]![0] === code[0]) {
      enhanced = suffix[1]!;
    }
  }
  for (const rule of rules) {
    if (ruleMatches(rule, code, enhanced, text)) return { class: rule.class, rule: rule.id };
  }
  return { class: 'temporary_other', rule: 'none' };
}
