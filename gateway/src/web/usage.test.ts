import { describe, expect, it } from 'vitest';
import { idTimeMs, newId } from '@dv/contracts';
import { dayKeys, fillDays, firstDay, firstJobIdAt, monthStart, nextMonthStart } from './usage.ts';

// The account page's date arithmetic and the job-id bound its usage query filters on.

describe('usage dates', () => {
  it('bounds the calendar month in UTC, across a year end', () => {
    const lateDec = new Date('2026-12-31T23:59:59Z');
    expect(monthStart(lateDec).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(nextMonthStart(lateDec).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('lists 30 days ending today, and fills days without jobs with zeros', () => {
    const from = firstDay(new Date('2026-03-01T08:00:00Z'));
    expect(from.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    const days = dayKeys(from);
    expect([days.length, days[0], days[29]]).toEqual([30, '2026-01-31', '2026-03-01']);
    const u = fillDays(days, [{ _id: '2026-02-14', deliverable: 5, risky: 1 }]);
    expect(u.deliverable[14]).toBe(5);
    expect(u.risky[14]).toBe(1);
    expect(u.unknown[14]).toBe(0);
    expect(u.deliverable.reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('gives the smallest job id of a moment: ids made then or later sort at or above it, earlier ones below', () => {
    const now = Date.now();
    const bound = firstJobIdAt(new Date(now));
    expect(idTimeMs(`${bound}${'0'.repeat(16)}`)).toBe(now);
    const made = newId('job');
    expect(made >= bound).toBe(true);
    expect(made < firstJobIdAt(new Date(Date.now() + 1000))).toBe(true);
    expect(firstJobIdAt(new Date(now - 1)) < bound).toBe(true);
  });
});
