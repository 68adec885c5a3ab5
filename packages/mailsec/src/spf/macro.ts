// SPF macro strings (RFC 7208 7): parsing with precise errors, and expansion.

export const MACRO_LETTERS = 'slodiphcrtv';
/** c, r and t only make sense in explanation text (7.2). */
const EXPLAIN_ONLY = 'crt';
const DELIMITERS = '.-+,/_=';

export type MacroToken =
  | { kind: 'literal'; text: string }
  /** %%, %_ and %- : literal output, but they count as a macro-expand for domain-end (7.1). */
  | { kind: 'escape'; text: string }
  | { kind: 'macro'; letter: string; upper: boolean; digits?: number; reverse: boolean; delimiters: string };

/** domain: a domain-spec (no c/r/t); explain: explanation text (spaces, all letters); modifier: an unknown modifier's value. */
export type MacroContext = 'domain' | 'explain' | 'modifier';

export type MacroParse = { ok: true; tokens: MacroToken[] } | { ok: false; error: string };

export function parseMacroString(text: string, context: MacroContext): MacroParse {
  const tokens: MacroToken[] = [];
  let literal = '';
  const flush = () => {
    if (literal) tokens.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 0x25) {
      // macro-literal = %x21-24 / %x26-7E; explanation text may also contain spaces.
      const visible = ch >= 0x21 && ch <= 0x7e;
      if (!visible && !(context === 'explain' && ch === 0x20)) {
        return { ok: false, error: `character ${describeChar(text[i] ?? '')} at offset ${i} is not allowed` };
      }
      literal += text[i];
      continue;
    }
    const next = text[i + 1];
    if (next === '%' || next === '_' || next === '-') {
      flush();
      tokens.push({ kind: 'escape', text: next === '%' ? '%' : next === '_' ? ' ' : '%20' });
      i++;
      continue;
    }
    if (next !== '{') return { ok: false, error: `"%" at offset ${i} must be followed by "{", "%", "_" or "-"` };
    const close = text.indexOf('}', i + 2);
    if (close < 0) return { ok: false, error: `macro at offset ${i} has no closing "}"` };
    const body = text.slice(i + 2, close);
    const m = /^([a-z])(\d*)(r?)([.\-+,/_=]*)$/i.exec(body);
    if (!m) return { ok: false, error: `malformed macro "%{${body}}"` };
    const [, letterRaw = '', digitsRaw = '', reverseRaw = '', delimiters = ''] = m;
    const letter = letterRaw.toLowerCase();
    if (!MACRO_LETTERS.includes(letter)) return { ok: false, error: `unknown macro letter "${letterRaw}" in "%{${body}}"` };
    if (context === 'domain' && EXPLAIN_ONLY.includes(letter)) {
      return { ok: false, error: `macro letter "${letterRaw}" is only allowed in explanation text` };
    }
    let digits: number | undefined;
    if (digitsRaw !== '') {
      digits = Number(digitsRaw);
      if (digits === 0) return { ok: false, error: `macro "%{${body}}" asks for zero parts` };
    }
    flush();
    tokens.push({ kind: 'macro', letter, upper: letterRaw !== letter, ...(digits !== undefined ? { digits } : {}), reverse: reverseRaw !== '', delimiters });
    i = close;
  }
  flush();
  return { ok: true, tokens };
}

function describeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code >= 0x21 && code <= 0x7e ? `"${ch}"` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Macro values; `p` is looked up lazily because it costs DNS queries. */
export interface MacroValues {
  s: string;
  l: string;
  o: string;
  d: string;
  i: string;
  v: string;
  h: string;
  c: string;
  r: string;
  t: string;
  p: () => Promise<string>;
}

export async function expandMacros(tokens: readonly MacroToken[], values: MacroValues): Promise<string> {
  let out = '';
  for (const token of tokens) {
    if (token.kind !== 'macro') {
      out += token.text;
      continue;
    }
    const raw = token.letter === 'p' ? await values.p() : values[token.letter as Exclude<keyof MacroValues, 'p'>];
    const transformed = transform(raw, token);
    out += token.upper ? urlEscape(transformed) : transformed;
  }
  return out;
}

/** 7.3: split on the delimiters (default "."), optionally reverse, keep the rightmost N, join with ".". */
function transform(value: string, token: Extract<MacroToken, { kind: 'macro' }>): string {
  const delimiters = token.delimiters || '.';
  const parts: string[] = [];
  let current = '';
  for (const ch of value) {
    if (DELIMITERS.includes(ch) && delimiters.includes(ch)) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  if (token.reverse) parts.reverse();
  const kept = token.digits !== undefined && token.digits < parts.length ? parts.slice(parts.length - token.digits) : parts;
  return kept.join('.');
}

/** Upper-case macro letters URL-escape every character outside RFC 3986 "unreserved" (7.3). */
export function urlEscape(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
