import { describe, expect, it } from 'vitest';
import { GREYLIST_LADDER_MINUTES, TEMP_FAILURE_LADDER_MINUTES } from './data/retry-ladder.ts';
import { nextAction, RETRY_LADDERS, RETRY_POLICY, throttlePauseMs } from './next-action.ts';
import type { NextAction, NextActionContext } from './next-action.ts';
import type { ReplyClass } from './reply-types.ts';

const MIN = 60_000;

describe('nextAction', () => {
  const cases: { cls: ReplyClass; attempt: number; ctx?: NextActionContext; expected: Partial<NextAction> }[] = [
    { cls: 'accepted', attempt: 1, expected: { kind: 'final' } },
    { cls: 'mailbox_absent', attempt: 1, expected: { kind: 'final' } },
    { cls: 'mailbox_full', attempt: 3, expected: { kind: 'final' } },
    { cls: 'will_not_verify', attempt: 1, expected: { kind: 'final' } },
    { cls: 'permanent_other', attempt: 1, expected: { kind: 'final' } },
    // the ladder counts from the first try: 5, 12, 20, 45, 75 minutes
    { cls: 'greylisted', attempt: 1, ctx: { elapsedMs: 2_000 }, expected: { kind: 'retry_at', delayMs: 5 * MIN - 2_000 } },
    { cls: 'greylisted', attempt: 2, ctx: { elapsedMs: 5 * MIN }, expected: { kind: 'retry_at', delayMs: 7 * MIN } },
    { cls: 'greylisted', attempt: 3, ctx: { elapsedMs: 12 * MIN }, expected: { kind: 'retry_at', delayMs: 8 * MIN } },
    { cls: 'greylisted', attempt: 4, ctx: { elapsedMs: 20 * MIN }, expected: { kind: 'retry_at', delayMs: 25 * MIN } },
    { cls: 'greylisted', attempt: 5, ctx: { elapsedMs: 50 * MIN }, expected: { kind: 'retry_at', delayMs: 25 * MIN } },
    { cls: 'greylisted', attempt: 5, ctx: { elapsedMs: 80 * MIN }, expected: { kind: 'retry_at', delayMs: 0 } },
    { cls: 'greylisted', attempt: 6, expected: { kind: 'final' } },
    // other temporary failures ride the short ladder: 5, 20 minutes, then final
    { cls: 'temporary_other', attempt: 1, expected: { kind: 'retry_at', delayMs: 5 * MIN } },
    { cls: 'temporary_other', attempt: 2, ctx: { elapsedMs: 5 * MIN }, expected: { kind: 'retry_at', delayMs: 15 * MIN } },
    { cls: 'temporary_other', attempt: 3, ctx: { elapsedMs: 20 * MIN }, expected: { kind: 'final' } },
    { cls: 'temporary_other', attempt: 6, expected: { kind: 'final' } },
    // a greylisted item at the same point keeps its ladder
    { cls: 'greylisted', attempt: 3, ctx: { elapsedMs: 20 * MIN }, expected: { kind: 'retry_at', delayMs: 0 } },
    { cls: 'throttled', attempt: 1, expected: { kind: 'pause_provider', pauseMs: 10 * MIN } },
    { cls: 'throttled', attempt: 2, ctx: { throttleStreak: 1 }, expected: { kind: 'pause_provider', pauseMs: 20 * MIN } },
    { cls: 'throttled', attempt: 3, ctx: { throttleStreak: 5 }, expected: { kind: 'pause_provider', pauseMs: 60 * MIN } },
    { cls: 'throttled', attempt: 6, expected: { kind: 'final' } },
    { cls: 'too_many_recipients', attempt: 1, ctx: { rcptsInSession: 20 }, expected: { kind: 'reconnect_fewer_rcpts', maxRcpts: 10 } },
    { cls: 'too_many_recipients', attempt: 1, ctx: { rcptsInSession: 3 }, expected: { kind: 'reconnect_fewer_rcpts', maxRcpts: 1 } },
    { cls: 'too_many_recipients', attempt: 1, ctx: { rcptsInSession: 1 }, expected: { kind: 'retry_at', delayMs: 5 * MIN } },
    { cls: 'too_many_recipients', attempt: 3, ctx: { rcptsInSession: 1 }, expected: { kind: 'final' } },
    { cls: 'policy_blocked', attempt: 1, ctx: { otherIpAvailable: true }, expected: { kind: 'move_ip', blockIpForMs: 60 * MIN } },
    { cls: 'policy_blocked', attempt: 1, ctx: { otherIpAvailable: false }, expected: { kind: 'final' } },
  ];
  it.each(cases)('$cls attempt $attempt $ctx -> $expected.kind', ({ cls, attempt, ctx, expected }) => {
    expect(nextAction(cls, attempt, RETRY_LADDERS, ctx)).toMatchObject(expected);
  });

  it('follows custom ladders, each for its own classes', () => {
    const ladders = { greylist: [1, 2], temporary: [1] };
    expect(nextAction('greylisted', 1, ladders)).toMatchObject({ kind: 'retry_at', delayMs: MIN });
    expect(nextAction('greylisted', 2, ladders)).toMatchObject({ kind: 'retry_at', delayMs: 2 * MIN });
    expect(nextAction('greylisted', 3, ladders)).toMatchObject({ kind: 'final' });
    expect(nextAction('temporary_other', 1, ladders)).toMatchObject({ kind: 'retry_at', delayMs: MIN });
    expect(nextAction('temporary_other', 2, ladders)).toMatchObject({ kind: 'final' });
    expect(nextAction('throttled', 2, ladders)).toMatchObject({ kind: 'pause_provider' });
    expect(nextAction('throttled', 3, ladders)).toMatchObject({ kind: 'final' });
  });

  it('keeps the short ladder within about 20 minutes and inside the greylist ladder', () => {
    expect(TEMP_FAILURE_LADDER_MINUTES.at(-1)).toBeLessThanOrEqual(20);
    expect(TEMP_FAILURE_LADDER_MINUTES.length).toBeLessThan(GREYLIST_LADDER_MINUTES.length);
    expect(TEMP_FAILURE_LADDER_MINUTES.every((m, i) => i === 0 || m > TEMP_FAILURE_LADDER_MINUTES[i - 1]!)).toBe(true);
  });
});

describe('throttlePauseMs', () => {
  it.each([
    [0, 10],
    [1, 20],
    [2, 40],
    [3, 60],
    [10, 60],
  ])('streak %i -> %i min', (streak, minutes) => expect(throttlePauseMs(streak)).toBe(minutes * MIN));

  it('takes the caller’s pause, and nextAction takes the caller’s pause and block (the scheduler’s settings)', () => {
    const throttlePause = { initialMs: 1_000, factor: 3, maxMs: 5_000 };
    expect([0, 1, 2].map((s) => throttlePauseMs(s, throttlePause))).toEqual([1_000, 3_000, 5_000]);
    const policy = { ...RETRY_POLICY, throttlePause, ipBlockMs: 7_000 };
    expect(nextAction('throttled', 1, policy, { throttleStreak: 1 })).toMatchObject({ kind: 'pause_provider', pauseMs: 3_000 });
    expect(nextAction('policy_blocked', 1, policy, { otherIpAvailable: true })).toMatchObject({ kind: 'move_ip', blockIpForMs: 7_000 });
    // Ladders alone: pause and block from the data file.
    expect(nextAction('policy_blocked', 1, { greylist: [1], temporary: [1] }, { otherIpAvailable: true })).toMatchObject({ blockIpForMs: 60 * MIN });
  });
});
