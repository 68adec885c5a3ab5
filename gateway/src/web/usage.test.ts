import { describe, expect, it } from 'vitest';
import { idTimeMs, newId } from '@dv/contracts';
import { DailyUsageCache, dayKeys, fillDays, firstDay, firstJobIdAt, monthStart, nextMonthStart } from './usage.ts';

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

describe('the usage chart kept per account', () => {
  it('reads once within its lifetime and day, again after either ends, and never keeps a failed read', async () => {
    let reads = 0;
    let fail = false;
    // A stand-in for the one aggregation the chart makes: only its count of calls matters here.
    const db = {
      collection: () => ({
        aggregate: () => ({
          toArray: async () => {
            reads++;
            if (fail) throw new Error('down');
            return [];
          },
        }),
      }),
    } as unknown as ConstructorParameters<typeof DailyUsageCache>[0];
    const cache = new DailyUsageCache(db, 60_000);
    const t0 = new Date('2026-12-07T23:59:00Z');
    await cache.get('acc_a', t0);
    await cache.get('acc_a', new Date(t0.getTime() + 30_000));
    expect(reads).toBe(1);
    await cache.get('acc_b', t0);
    expect(reads).toBe(2);
    // Past midnight: a new day's chart, whatever the lifetime says.
    await cache.get('acc_a', new Date('2026-12-08T00:00:10Z'));
    expect(reads).toBe(3);
    fail = true;
    await expect(cache.get('acc_c', t0)).rejects.toThrow('down');
    fail = false;
    await cache.get('acc_c', t0);
    expect(reads).toBe(5);
  });
});
