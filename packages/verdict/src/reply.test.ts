import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPLY_RULES } from './data/reply-rules.ts';
import { nextAction } from './next-action.ts';
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
  it('holds at least 150 real-world replies covering every class', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(150);
    const classes = new Set(FIXTURES.map((f) => f.expected));
    expect([...classes].sort()).toEqual(Object.values(REPLY_CLASS).sort());
  });

  it.each(FIXTURES.map((f) => [f.expected, f.source, f.lines.join(' / ').slice(0, 90), f] as const))('%s <- %s: %s', (_e, _s, _t, f) => {
    expect(classifyRaw(f.lines).class).toBe(f.expected);
  });
});

// The classification's invariants, stated with the test's own word lists (not the rule table's), so a
// rule edit cannot weaken both sides at once.
const BLOCK_HARVEST_RATE =
  /spamhaus|spamcop|uceprotect|barracudacentral|blocked|black ?list|block ?list|reputation|banned|sender verify failed|too many (invalid|unknown|bad|rejected) (recipients|users)|too many errors|harvest|dictionary attack|namespace mining|\b(RP|SC|DY|OU)-00\d\b|\((RTR|RLY|DYN|HVU):|\[(TSS?|GL|BL)\d\d\]|rate limit|too many (connections|messages)|temporarily deferred/i;
const MAILBOX =
  /user unknown|unknown user|no such (user|mailbox|recipient)|does not exist|doesn't exist|mailbox (is )?unavailable|mailbox not found|invalid (recipient|mailbox)|recipient not found|not our customer|no mailbox|unrouteable|RecipNotFound|RecipientNotFound|user not listed|doesn't have an? \S+ account/i;

describe('reply invariants', () => {
  const blockLines = FIXTURES.filter((f) => BLOCK_HARVEST_RATE.test(f.lines.join(' ')));
  const mailboxLines = FIXTURES.filter((f) => MAILBOX.test(f.lines.join(' ')) && !BLOCK_HARVEST_RATE.test(f.lines.join(' ')));

  it('never reads a block, a harvest defence or a rate limit as a missing mailbox', () => {
    expect(blockLines.length).toBeGreaterThanOrEqual(60);
    for (const f of blockLines) expect(['policy_blocked', 'throttled'], f.lines.join(' ')).toContain(classifyRaw(f.lines).class);
  });

  it('never reads mailbox wording as a block or a rate limit', () => {
    expect(mailboxLines.length).toBeGreaterThanOrEqual(30);
    for (const f of mailboxLines) expect(['policy_blocked', 'throttled', 'accepted'], f.lines.join(' ')).not.toContain(classifyRaw(f.lines).class);
  });

  // Every mix of the two: harvest and policy wording wins over mailbox wording, whichever comes
  // first and whatever enhanced code the server put in front.
  const blocks = [
    'Client host [x.x.x.x] blocked using zen.spamhaus.org',
    'Too many invalid recipients',
    'too many unknown recipients, connection refused',
    'Directory harvest attack detected',
    'SC-002 namespace mining',
    '(RTR:BL) https://postmaster.aol.com/error-codes',
    '[TSS09] All messages from x.x.x.x will be permanently deferred',
    'your IP is listed on a blacklist',
    'poor IP reputation',
    'rate limit exceeded',
    'too many connections from your IP',
    'Sender verify failed',
  ];
  const mailboxes = ['User unknown in virtual mailbox table', 'No such user here', 'mailbox unavailable', 'Recipient not found', 'user does not exist', 'Invalid recipient'];
  const mixes = blocks.flatMap((b) => mailboxes.flatMap((m) => [550, 554].flatMap((code) => ['', '5.1.1 ', '5.7.1 '].flatMap((e) => [`${code} ${e}${m}; ${b}`, `${code} ${e}${b}: ${m}`]))));
  it(`mixes of block and mailbox wording (${mixes.length}) are never mailbox_absent`, () => {
    for (const raw of mixes) expect(['policy_blocked', 'throttled'], raw).toContain(classifyRaw([raw]).class);
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
    // The enhanced code decides before the words: a broken lookup table is not a greylister.
    { code: 451, enhanced: '4.3.0', text: 'Temporary lookup failure, please try again later', cls: 'temporary_other', rule: 'receiving-system-trouble' },
    { code: 451, enhanced: '4.3.5', text: 'try again later', cls: 'temporary_other', rule: 'receiving-system-trouble' },
    { code: 451, enhanced: '4.4.7', text: 'please retry', cls: 'temporary_other', rule: 'receiving-system-trouble' },
    { code: 451, enhanced: '4.7.1', text: 'try again later', cls: 'greylisted', rule: 'greylisted' },
    { code: 450, enhanced: '4.2.0', text: 'Greylisted, try again later', cls: 'greylisted', rule: 'greylisted' },
    { code: 450, enhanced: '4.3.2', text: 'Service currently unavailable', cls: 'temporary_other', rule: 'fallback-4xx' },
    // Rate wording still slows us down, whatever the enhanced code.
    { code: 451, enhanced: '4.3.0', text: 'rate limit exceeded, try again later', cls: 'throttled' },
    // A bare basic code falls back to the words.
    { code: 451, text: 'Temporary lookup failure, please try again later', cls: 'greylisted', rule: 'greylisted' },
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

describe('a receiving system in trouble', () => {
  // Postfix with a broken lookup table answers every RCPT, the catch-all probe too, this way: the
  // item must end unknown after the short ladder, not ride the greylist ladder for over an hour.
  it('ends its items after the short ladder even when the text says "try again later"', () => {
    const cls = classifyRaw(['451 4.3.0 <x>: Temporary lookup failure, please try again later']).class;
    expect(cls).toBe('temporary_other');
    let elapsedMs = 0;
    let attempt = 1;
    for (let a = nextAction(cls, attempt, undefined, { elapsedMs }); a.kind !== 'final'; a = nextAction(cls, ++attempt, undefined, { elapsedMs })) {
      expect(a.kind).toBe('retry_at');
      if (a.kind === 'retry_at') elapsedMs += a.delayMs;
    }
    expect(attempt).toBeLessThanOrEqual(3);
    expect(elapsedMs).toBeLessThanOrEqual(20 * 60_000);
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
