import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPLY_RULES } from './data/reply-rules.ts';
import { classifyReply, parseReply } from './reply.ts';
import { REPLY_CLASS } from './reply-types.ts';
import type { ReplyClass } from './reply-types.ts';

interface FixtureLine {
  expected: ReplyClass;
  source: string;
  lines: string[];
}

const FIXTURES: FixtureLine[] = readFileSync(new URL('./fixtures/replies.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.length > 0 && !l.startsWith('#'))
  .map((l) => {
    const [expected, source, raw] = l.split('\t');
    return { expected: expected as ReplyClass, source: source!, lines: raw!.split('\\n') };
  });

function classifyRaw(lines: string[]) {
  const parsed = parseReply(lines);
  if (!parsed) throw new Error(`unparseable: ${lines.join(' / ')}`);
  return classifyReply(parsed);
}

describe('reply fixture corpus', () => {
  it('holds at least 60 real-world replies covering every class', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(60);
    const classes = new Set(FIXTURES.map((f) => f.expected));
    expect([...classes].sort()).toEqual(Object.values(REPLY_CLASS).sort());
  });

  it.each(FIXTURES.map((f) => [f.expected, f.source, f.lines.join(' / ').slice(0, 90), f] as const))('%s <- %s: %s', (_e, _s, _t, f) => {
    expect(classifyRaw(f.lines).class).toBe(f.expected);
  });

  it('never reads a block of our IP as a missing mailbox', () => {
    const policyLines = FIXTURES.filter((f) => /spamhaus|blocked|blacklist|block list|reputation|banned/i.test(f.lines.join(' ')));
    expect(policyLines.length).toBeGreaterThanOrEqual(15);
    for (const f of policyLines) expect(classifyRaw(f.lines).class, f.lines.join(' ')).toBe('policy_blocked');
  });
});

describe('classifyReply', () => {
  const cases: { code: number; enhanced?: string; text?: string; cls: ReplyClass; rule?: string }[] = [
    { code: 250, cls: 'accepted', rule: 'accepted' },
    { code: 252, cls: 'will_not_verify' },
    { code: 550, enhanced: '5.1.1', text: 'user unknown', cls: 'mailbox_absent', rule: 'absent-enhanced' },
    { code: 550, text: '5.1.1 user unknown', cls: 'mailbox_absent', rule: 'absent-enhanced' },
    { code: 550, enhanced: '5.1.1', text: 'blocked using zen.spamhaus.org', cls: 'policy_blocked', rule: 'policy-wording' },
    { code: 550, enhanced: '5.7.1', text: 'go away', cls: 'policy_blocked', rule: 'policy-enhanced' },
    { code: 451, text: 'whatever', cls: 'temporary_other', rule: 'fallback-4xx' },
    { code: 553, text: 'whatever', cls: 'permanent_other', rule: 'fallback-5xx' },
    { code: 354, cls: 'temporary_other', rule: 'fallback-other' },
    // An enhanced code of the wrong class is ignored (a 4xx reply cannot carry 5.1.1).
    { code: 450, text: '5.1.1 user unknown', cls: 'temporary_other' },
  ];
  it.each(cases)('$code $enhanced $text -> $cls', ({ cls, rule, ...reply }) => {
    const r = classifyReply(reply);
    expect(r.class).toBe(cls);
    if (rule) expect(r.rule).toBe(rule);
  });

  it('has unique rule ids and ends with a rule that matches anything', () => {
    expect(new Set(REPLY_RULES.map((r) => r.id)).size).toBe(REPLY_RULES.length);
    const last = REPLY_RULES[REPLY_RULES.length - 1]!;
    expect(last.code ?? last.enhanced ?? last.text).toBeUndefined();
  });
});

describe('parseReply', () => {
  it('joins a multi-line reply and takes the enhanced code from the first line', () => {
    expect(parseReply('550-5.1.1 The email account that you tried to reach does not exist.\r\n550-5.1.1 Please try\r\n550 5.1.1 double-checking - gsmtp')).toEqual({
      code: 550,
      enhanced: '5.1.1',
      text: 'The email account that you tried to reach does not exist. Please try double-checking - gsmtp',
    });
  });
  const cases: { raw: string | string[]; code: number | null; enhanced?: string | null; text?: string }[] = [
    { raw: '250 2.1.5 Ok', code: 250, enhanced: '2.1.5', text: 'Ok' },
    { raw: '250 OK', code: 250, enhanced: null, text: 'OK' },
    { raw: '550', code: 550, enhanced: null, text: '' },
    { raw: ['452-4.2.2 over', '452 4.2.2 quota'], code: 452, enhanced: '4.2.2', text: 'over quota' },
    { raw: '550 #5.1.0 Address rejected.', code: 550, enhanced: '5.1.0', text: 'Address rejected.' },
    { raw: '550 sorry, no mailbox here by that name. (#5.1.1)', code: 550, enhanced: '5.1.1' },
    { raw: '451 5.7.1 mismatched class', code: 451, enhanced: null, text: '5.7.1 mismatched class' },
    { raw: 'garbage', code: null },
    { raw: '', code: null },
  ];
  it.each(cases)('$raw', ({ raw, code, enhanced, text }) => {
    const p = parseReply(raw);
    if (code === null) return expect(p).toBeNull();
    expect(p?.code).toBe(code);
    if (enhanced !== undefined) expect(p?.enhanced).toBe(enhanced);
    if (text !== undefined) expect(p?.text).toBe(text);
  });
});
