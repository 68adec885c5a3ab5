// The only commands a probe can put on the wire, and the address checks in front of them. Pure.
//
// There is deliberately no DATA or BDAT here: the verbs are a closed set, so no code path of the
// probe can start a message transaction (a probe never sends mail: docs/probe-node.md).
import { randomBytes } from 'node:crypto';

export type Command =
  | { verb: 'EHLO'; name: string }
  | { verb: 'HELO'; name: string }
  | { verb: 'STARTTLS' }
  | { verb: 'MAIL'; from: string; smtputf8: boolean }
  | { verb: 'RCPT'; to: string }
  | { verb: 'RSET' }
  | { verb: 'QUIT' };

export class UnsafeCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeCommandError';
  }
}

// Any control character (C0 incl. NUL/CR/LF/TAB, DEL, C1 incl. NEL) or Unicode line/paragraph
// separator: none of them may ever reach the wire from an address.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export type AddressProblem = 'empty' | 'too_long' | 'control_character' | 'angle_bracket' | 'whitespace' | 'no_at_sign';

/**
 * Why an address cannot be sent as an SMTP path, or null when it can. This is wire hygiene, not
 * the syntax check (the scheduler runs @dv/verdict's checkSyntax before probing): anything that
 * could split, end or escape the `RCPT TO:<...>` line is refused.
 */
export function addressProblem(address: string): AddressProblem | null {
  if (address.length === 0) return 'empty';
  if (Buffer.byteLength(address, 'utf8') > 320) return 'too_long';
  if (CONTROL.test(address)) return 'control_character';
  if (/[<>]/.test(address)) return 'angle_bracket';
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return 'no_at_sign';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  // Whitespace only inside a quoted local part ("john doe"@example.com is a valid RFC 5321 path).
  const quoted = local.length >= 2 && local.startsWith('"') && local.endsWith('"');
  if (/\s/.test(domain) || (!quoted && /\s/.test(local))) return 'whitespace';
  return null;
}

/** Non-ASCII addresses need the SMTPUTF8 extension (RFC 6531). */
export function needsSmtpUtf8(address: string): boolean {
  return /[^\x20-\x7e]/.test(address);
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random address at the domain for the catch-all probe: starts with a letter, lower-case letters
 * and digits, `length` characters (at least 16), so no real mailbox plausibly has it.
 */
export function catchAllAddress(domain: string, length: number, random: (n: number) => Buffer = randomBytes): string {
  const n = Math.max(16, length);
  const bytes = random(n);
  let local = ALPHABET[bytes[0]! % 26]!;
  for (let i = 1; i < n; i++) local += ALPHABET[bytes[i]! % ALPHABET.length]!;
  return `${local}@${domain}`;
}

/** The command line without CRLF; throws when anything unsafe would reach the wire. */
export function commandLine(cmd: Command): string {
  let line: string;
  switch (cmd.verb) {
    case 'EHLO':
    case 'HELO':
      line = `${cmd.verb} ${cmd.name}`;
      break;
    case 'STARTTLS':
    case 'RSET':
    case 'QUIT':
      line = cmd.verb;
      break;
    case 'MAIL':
      // The null reverse-path <> is legal for MAIL FROM, unlike for RCPT.
      if (cmd.from !== '' && addressProblem(cmd.from) !== null) throw new UnsafeCommandError('unsafe MAIL FROM address');
      line = `MAIL FROM:<${cmd.from}>${cmd.smtputf8 ? ' SMTPUTF8' : ''}`;
      break;
    case 'RCPT':
      if (addressProblem(cmd.to) !== null) throw new UnsafeCommandError('unsafe RCPT TO address');
      line = `RCPT TO:<${cmd.to}>`;
      break;
  }
  // Second line of defence: whatever built the command, no control character leaves this function.
  if (CONTROL.test(line)) throw new UnsafeCommandError(`control character in ${cmd.verb} command`);
  return line;
}
