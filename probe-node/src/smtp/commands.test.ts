import { describe, expect, it } from 'vitest';
import { UnsafeCommandError, addressProblem, catchAllAddress, commandLine, needsSmtpUtf8 } from './commands.ts';

describe('addressProblem', () => {
  it.each([
    ['jane@acme.test', null],
    ['"john doe"@acme.test', null],
    ['josé@acme.test', null],
    ['', 'empty'],
    ['a\r\nDATA@acme.test', 'control_character'],
    ['a@acme.test\r\nDATA', 'control_character'],
    ['a\n@acme.test', 'control_character'],
    ['a\u0000@acme.test', 'control_character'],
    ['a\u0085@acme.test', 'control_character'],
    ['a\u2028@acme.test', 'control_character'],
    ['a\t@acme.test', 'control_character'],
    ['a>@acme.test', 'angle_bracket'],
    ['john doe@acme.test', 'whitespace'],
    ['nobody', 'no_at_sign'],
    ['x@', 'no_at_sign'],
    [`${'a'.repeat(320)}@acme.test`, 'too_long'],
  ])('%j -> %s', (address, problem) => {
    expect(addressProblem(address)).toBe(problem);
  });
});

describe('commandLine', () => {
  it('builds the closed set of probe commands', () => {
    expect(commandLine({ verb: 'MAIL', from: 'v@probe.test', smtputf8: false })).toBe('MAIL FROM:<v@probe.test>');
    expect(commandLine({ verb: 'MAIL', from: '', smtputf8: true })).toBe('MAIL FROM:<> SMTPUTF8');
    expect(commandLine({ verb: 'RCPT', to: 'a@b.test' })).toBe('RCPT TO:<a@b.test>');
    expect(commandLine({ verb: 'EHLO', name: 'probe.test' })).toBe('EHLO probe.test');
  });

  it('refuses to build a line with a control character, whatever the caller checked', () => {
    expect(() => commandLine({ verb: 'RCPT', to: 'a\r\nDATA@b.test' })).toThrow(UnsafeCommandError);
    expect(() => commandLine({ verb: 'MAIL', from: 'v@p.test>\r\nDATA', smtputf8: false })).toThrow(UnsafeCommandError);
    expect(() => commandLine({ verb: 'EHLO', name: 'x\r\nDATA' })).toThrow(UnsafeCommandError);
  });
});

describe('catchAllAddress', () => {
  it('is a random local part of at least 16 characters starting with a letter', () => {
    const a = catchAllAddress('acme.test', 20);
    expect(a).toMatch(/^[a-z][a-z0-9]{19}@acme\.test$/);
    expect(catchAllAddress('acme.test', 4)).toMatch(/^[a-z0-9]{16}@/);
    expect(catchAllAddress('acme.test', 20)).not.toBe(a);
  });

  it('detects addresses that need SMTPUTF8', () => {
    expect(needsSmtpUtf8('josé@acme.test')).toBe(true);
    expect(needsSmtpUtf8('jose@acme.test')).toBe(false);
  });
});
