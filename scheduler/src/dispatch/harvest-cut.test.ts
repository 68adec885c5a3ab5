// Table-driven tests of the pure rules for sessions cut by a harvest defence (harvest-cut.ts) and of what
// decideAddress makes of the addresses such a cut left unanswered.
import { describe, expect, it } from 'vitest';
import type { ProbeSessionReply, SmtpReply } from '@dv/contracts';
import { providerForMx } from '@dv/verdict';
import { errorBudgetFrom, isErrorLimitCut, probesCatchAll, rcptsWithinErrorBudget } from './harvest-cut.ts';
import { decideAddress } from './decide.ts';

const r = (code: number, enhanced: string | null, text: string): SmtpReply => ({ code, enhanced, text });
const POSTFIX_CUT = r(421, '4.7.0', 'mx.d.test Error: too many errors');
const RATE_CUT = r(421, '4.7.0', 'Try again later, closing connection.');

function session(cut: { reply: SmtpReply; errors: number } | undefined): ProbeSessionReply {
  return {
    session_id: 's',
    node_id: 'n',
    outcome: 'completed',
    mx_used: 'mx.d.test',
    source_ip: '127.0.0.1',
    tls: false,
    catch_all: { address: 'zz@d.test', reply: r(550, '5.1.1', 'User unknown') },
    results: [
      { address: 'a@d.test', reply: r(550, '5.1.1', 'User unknown'), ms: 1, stage: 'rcpt', state: 'replied' },
      { address: 'b@d.test', reply: null, ms: 0, state: cut ? 'unanswered' : 'not_attempted' },
    ],
    duration_ms: 5,
    ...(cut ? { cut: { stage: 'rcpt' as const, ...cut } } : {}),
  };
}

describe('harvest-cut.ts', () => {
  it.each([
    ['Postfix smtpd_hard_error_limit', POSTFIX_CUT, 5, true, 5],
    ['Exchange', r(421, '4.7.0', 'Too many errors on this connection, closing transmission channel'), 3, true, 3],
    ['Exim-style', r(421, null, 'mx.d.test: too many bad recipients'), 4, true, 4],
    ['a rate limit closes the channel too, but is not an error limit', RATE_CUT, 5, false, null],
    ['a cut before any error teaches nothing', POSTFIX_CUT, 0, true, null],
  ] as const)('%s', (_name, reply, errors, isLimit, budget) => {
    const s = session({ reply, errors });
    expect(isErrorLimitCut(s)).toBe(isLimit);
    expect(errorBudgetFrom(s)).toBe(budget);
  });

  it('no cut, no budget', () => {
    expect(isErrorLimitCut(session(undefined))).toBe(false);
    expect(errorBudgetFrom(session(undefined))).toBeNull();
  });

  it.each([
    [null, true, Number.POSITIVE_INFINITY],
    [5, true, 3],
    [5, false, 4],
    [20, true, 18],
    [2, true, 1],
    [1, false, 1],
  ] as const)('budget %s, catch-all probe %s -> %s RCPTs a session', (budget, probe, rcpts) => {
    expect(rcptsWithinErrorBudget(budget, probe)).toBe(rcpts);
  });

  it('the catch-all probe counts unless the provider accepts all at RCPT or is skipped', () => {
    expect(probesCatchAll('d.test', providerForMx('mx.d.test'))).toBe(true);
    expect(probesCatchAll('x.test', providerForMx('mta5.am0.yahoodns.net'))).toBe(false);
  });
});

describe('decideAddress for an address a cut left unanswered', () => {
  const base = { attempt: 1, elapsedMs: 0, ladders: { greylist: [5, 12, 20, 45, 75], temporary: [5, 20] }, throttleStreak: 0, otherIpAvailable: true, maxCutRedispatches: 5 };

  it('an error limit sends it again at once, never judged; the answered address is final', () => {
    const s = session({ reply: POSTFIX_CUT, errors: 5 });
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 0 })).toEqual({ kind: 'redispatch' });
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 4 })).toEqual({ kind: 'redispatch' });
    expect(decideAddress({ ...base, address: 'a@d.test', reply: s, cutRedispatches: 0 })).toMatchObject({ kind: 'final', probe: { rcpt: { class: 'mailbox_absent' } } });
  });

  it('resends used up: the cut counts as a throttle (pause), still not a verdict from it', () => {
    const s = session({ reply: POSTFIX_CUT, errors: 5 });
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 5 })).toMatchObject({ kind: 'pause', probe: { rcpt: { class: 'throttled', rule: 'too-many-errors' } } });
  });

  it("a rate limit's 421 pauses the provider, as a 421 greeting does", () => {
    const s = session({ reply: RATE_CUT, errors: 1 });
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 0 })).toMatchObject({ kind: 'pause', probe: { rcpt: { class: 'throttled', rule: 'throttle-421' } } });
  });

  it('unanswered without a cut (an older probe) is sent again within the same bound, then judged without a reply', () => {
    const s = { ...session(undefined), results: [{ address: 'b@d.test', reply: null, ms: 0, state: 'unanswered' as const }] };
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 0 })).toEqual({ kind: 'redispatch' });
    expect(decideAddress({ ...base, address: 'b@d.test', reply: s, cutRedispatches: 5 })).toMatchObject({ kind: 'final', probe: { rcpt: null } });
  });
});
