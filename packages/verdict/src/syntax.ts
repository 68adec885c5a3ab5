// Address syntax as real MTAs accept it for delivery (RFC 5321 mailbox, RFC 6531 SMTPUTF8), not
// the full RFC 5322 grammar: no comments, no obsolete forms, no address literals. Anything that
// could smuggle a command onto the SMTP wire (CR, LF, NUL or any other control character) fails.
import { domainToASCII, domainToUnicode } from 'node:url';

export const LIMITS = {
  /** The API accepts up to 320 characters (spec: POST /v1/verify `email`). */
  inputChars: 320,
  localOctets: 64,
  domainOctets: 255,
  addressOctets: 254,
  labelOctets: 63,
} as const;

export const SYNTAX_ERROR = {
  empty: 'empty',
  inputTooLong: 'input_too_long',
  controlCharacter: 'control_character',
  missingAt: 'missing_at',
  multipleAt: 'multiple_at',
  localEmpty: 'local_empty',
  localTooLong: 'local_too_long',
  localInvalidChar: 'local_invalid_char',
  localDots: 'local_dots',
  quotedInvalid: 'quoted_invalid',
  domainEmpty: 'domain_empty',
  addressLiteral: 'address_literal',
  domainInvalid: 'domain_invalid',
  domainSingleLabel: 'domain_single_label',
  domainLabelTooLong: 'domain_label_too_long',
  domainTooLong: 'domain_too_long',
  domainNumeric: 'domain_numeric',
  addressTooLong: 'address_too_long',
} as const;
export type SyntaxErrorCode = (typeof SYNTAX_ERROR)[keyof typeof SYNTAX_ERROR];

export interface SyntaxOk {
  ok: true;
  /** Canonical address: local part as given (NFC, unneeded quotes removed) @ lowercase ASCII domain. */
  address: string;
  local: string;
  /** ASCII (punycode) lowercase domain. */
  domain: string;
  domainUnicode: string;
  /** The input's local part was quoted. */
  quoted: boolean;
  /** Delivery needs SMTPUTF8 (non-ASCII local part). */
  smtputf8: boolean;
}

export interface SyntaxFailure {
  ok: false;
  code: SyntaxErrorCode;
  reason: string;
}

export type SyntaxResult = SyntaxOk | SyntaxFailure;

const ATEXT_ASCII = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]$/;
// C0/C1 controls, DEL, format characters (bidi overrides, zero-width joiners) and line separators.
const FORBIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const UNICODE_SPACE = /\p{Zs}/u;

function fail(code: SyntaxErrorCode, reason: string): SyntaxFailure {
  return { ok: false, code, reason };
}

function octets(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function describe(ch: string): string {
  const named: Record<string, string> = { '\r': 'CR', '\n': 'LF', '\0': 'NUL', '\t': 'TAB' };
  const hex = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return named[ch] ? `${named[ch]} (${hex})` : hex;
}

function atomCharProblem(ch: string): string | null {
  if (ATEXT_ASCII.test(ch) || ch === '.') return null;
  if (ch.codePointAt(0)! > 0x7f && !UNICODE_SPACE.test(ch)) return null;
  if (ch === '(' || ch === ')') return 'comments in parentheses are not accepted';
  if (ch === ' ' || UNICODE_SPACE.test(ch)) return 'spaces are only allowed inside a quoted local part';
  return `the character "${ch}" is only allowed inside a quoted local part`;
}

function isDotAtom(s: string): boolean {
  return s.length > 0 && !s.startsWith('.') && !s.endsWith('.') && !s.includes('..') && [...s].every((c) => atomCharProblem(c) === null);
}

interface LocalParse {
  local: string;
  quoted: boolean;
  rest: string;
}

function parseQuotedLocal(input: string): LocalParse | SyntaxFailure {
  let content = '';
  for (let i = 1; i < input.length; i++) {
    const ch = input[i]!;
    if (ch === '\\') {
      const next = input[i + 1];
      if (next === undefined) break;
      content += next;
      i++;
    } else if (ch === '"') {
      const rest = input.slice(i + 1);
      if (!rest.startsWith('@')) {
        return fail(SYNTAX_ERROR.quotedInvalid, 'text follows the closing quote of the local part (obsolete mixed forms are not accepted)');
      }
      if (content.length === 0) return fail(SYNTAX_ERROR.localEmpty, 'the quoted local part is empty');
      // RFC 5321 4.1.2: use the unquoted form whenever it is valid.
      const local = isDotAtom(content) ? content : `"${content.replace(/(["\\])/g, '\\$1')}"`;
      return { local, quoted: true, rest: rest.slice(1) };
    } else {
      content += ch;
    }
  }
  return fail(SYNTAX_ERROR.quotedInvalid, 'the quoted local part has no closing quote');
}

function parseLocal(input: string): LocalParse | SyntaxFailure {
  if (input.startsWith('"')) return parseQuotedLocal(input);
  const at = input.indexOf('@');
  if (at < 0) return fail(SYNTAX_ERROR.missingAt, 'the address has no @');
  const local = input.slice(0, at);
  const rest = input.slice(at + 1);
  if (rest.includes('@')) return fail(SYNTAX_ERROR.multipleAt, 'the address has more than one @ outside quotes');
  if (local.length === 0) return fail(SYNTAX_ERROR.localEmpty, 'nothing before the @');
  for (const ch of local) {
    const problem = atomCharProblem(ch);
    if (problem) return fail(SYNTAX_ERROR.localInvalidChar, `local part: ${problem}`);
  }
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) {
    return fail(SYNTAX_ERROR.localDots, 'the local part starts or ends with a dot or has two dots in a row');
  }
  return { local, quoted: false, rest };
}

function checkLabel(label: string): SyntaxFailure | null {
  if (label.length > LIMITS.labelOctets) {
    return fail(SYNTAX_ERROR.domainLabelTooLong, `the domain label "${label.slice(0, 20)}…" is longer than ${LIMITS.labelOctets} characters`);
  }
  if (!/^[a-z0-9-]+$/.test(label)) {
    return fail(SYNTAX_ERROR.domainInvalid, `the domain label "${label}" may hold only letters, digits and hyphens`);
  }
  if (label.startsWith('-') || label.endsWith('-')) {
    return fail(SYNTAX_ERROR.domainInvalid, `the domain label "${label}" starts or ends with a hyphen`);
  }
  if (label.startsWith('xn--') && domainToUnicode(label) === label) {
    return fail(SYNTAX_ERROR.domainInvalid, `the domain label "${label}" is not valid punycode`);
  }
  return null;
}

function parseDomain(raw: string): { ascii: string; unicode: string } | SyntaxFailure {
  if (raw.length === 0) return fail(SYNTAX_ERROR.domainEmpty, 'nothing after the @');
  if (raw.includes('@')) return fail(SYNTAX_ERROR.multipleAt, 'the address has more than one @ outside quotes');
  if (raw.startsWith('[')) {
    return fail(SYNTAX_ERROR.addressLiteral, 'address literals such as [192.0.2.1] are not verified; use the domain name');
  }
  const rawLabels = raw.split(/[.\u3002\uff0e\uff61]/);
  if (rawLabels.some((l) => l.length === 0)) {
    return fail(SYNTAX_ERROR.domainInvalid, 'the domain starts or ends with a dot or has two dots in a row');
  }
  if (/^\d+$/.test(rawLabels[rawLabels.length - 1]!) || /^0x[0-9a-f]*$/i.test(rawLabels[rawLabels.length - 1]!)) {
    return fail(SYNTAX_ERROR.domainNumeric, 'the domain looks like an IP address; use the domain name');
  }
  if (rawLabels.length < 2) return fail(SYNTAX_ERROR.domainSingleLabel, 'the domain needs at least two labels, such as example.com');
  if (UNICODE_SPACE.test(raw)) return fail(SYNTAX_ERROR.domainInvalid, 'the domain contains a space');
  const ascii = domainToASCII(raw);
  if (ascii === '') return fail(SYNTAX_ERROR.domainInvalid, 'the domain is not a valid (internationalized) domain name');
  if (ascii.length > LIMITS.domainOctets) {
    return fail(SYNTAX_ERROR.domainTooLong, `the domain is longer than ${LIMITS.domainOctets} characters`);
  }
  const labels = ascii.split('.');
  for (const label of labels) {
    const problem = checkLabel(label);
    if (problem) return problem;
  }
  if (!/^([a-z]{2,63}|xn--[a-z0-9-]+)$/.test(labels[labels.length - 1]!)) {
    return fail(SYNTAX_ERROR.domainInvalid, 'the top-level domain must be letters only');
  }
  return { ascii, unicode: domainToUnicode(ascii) };
}

export function checkSyntax(input: string): SyntaxResult {
  if (typeof input !== 'string' || input.length === 0) return fail(SYNTAX_ERROR.empty, 'the address is empty');
  if ([...input].length > LIMITS.inputChars) {
    return fail(SYNTAX_ERROR.inputTooLong, `the input is longer than ${LIMITS.inputChars} characters`);
  }
  const bad = FORBIDDEN.exec(input);
  if (bad) return fail(SYNTAX_ERROR.controlCharacter, `the address contains the control character ${describe(bad[0])}`);
  const trimmed = input.trim();
  if (trimmed.length === 0) return fail(SYNTAX_ERROR.empty, 'the address is empty');

  const local = parseLocal(trimmed.normalize('NFC'));
  if ('ok' in local) return local;
  const domain = parseDomain(local.rest);
  if ('ok' in domain) return domain;

  if (octets(local.local) > LIMITS.localOctets) {
    return fail(SYNTAX_ERROR.localTooLong, `the local part is longer than ${LIMITS.localOctets} octets`);
  }
  const address = `${local.local}@${domain.ascii}`;
  if (octets(address) > LIMITS.addressOctets) {
    return fail(SYNTAX_ERROR.addressTooLong, `the address is longer than ${LIMITS.addressOctets} octets`);
  }
  return {
    ok: true,
    address,
    local: local.local,
    domain: domain.ascii,
    domainUnicode: domain.unicode,
    quoted: local.quoted,
    smtputf8: [...local.local].some((c) => c.codePointAt(0)! > 0x7f),
  };
}
