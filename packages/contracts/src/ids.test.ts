import { describe, expect, it } from 'vitest';
import { idTimeMs, isId, newId } from './ids.ts';

describe('ids', () => {
  it('are prefixed and sort by creation time', () => {
    const a = newId('job', 1_700_000_000_000);
    const b = newId('job', 1_700_000_000_001);
    expect(a.startsWith('job_')).toBe(true);
    expect(a < b).toBe(true);
    expect(idTimeMs(a)).toBe(1_700_000_000_000);
  });

  it('stay strictly increasing within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId('event', 1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });

  it('recognises well-formed ids of a kind and rejects others', () => {
    const id = newId('apiKey');
    expect(isId('apiKey', id)).toBe(true);
    expect(isId('job', id)).toBe(false);
    expect(isId('apiKey', 'key_../../etc')).toBe(false);
    expect(isId('apiKey', `${id}x`)).toBe(false);
  });
});

describe('ids handed to users are not predictable from each other', () => {
  const body = (id: string) => id.slice(id.indexOf('_') + 1);
  /** The 80-bit random part as a number (16 Crockford characters after the 10 of time). */
  const randomPart = (id: string) => BigInt(`0b${[...body(id).slice(10)].map((c) => '0123456789abcdefghjkmnpqrstvwxyz'.indexOf(c).toString(2).padStart(5, '0')).join('')}`);

  it('consecutive ids of one millisecond differ before the last character, by steps that vary', () => {
    const ms = Date.now() + 60_000;
    const ids = Array.from({ length: 500 }, () => newId('job', ms));
    const steps = new Set<bigint>();
    for (let i = 1; i < ids.length; i++) {
      const [prev, next] = [body(ids[i - 1]!), body(ids[i]!)];
      expect(next.slice(0, 10)).toBe(prev.slice(0, 10));
      // The old monotonic factory changed only the last character (+1); a neighbour's id was computable.
      expect(next.slice(0, 25)).not.toBe(prev.slice(0, 25));
      const step = randomPart(ids[i]!) - randomPart(ids[i - 1]!);
      expect(step >= 2n ** 32n).toBe(true);
      steps.add(step);
    }
    expect(steps.size).toBe(ids.length - 1);
    // Still strictly increasing within the millisecond, and valid ids.
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(isId('job', id)).toBe(true);
  });

  it('a new millisecond draws a fresh random part, and ids sort by time across milliseconds', () => {
    const base = Date.now() + 120_000;
    const ids: string[] = [];
    for (let ms = 0; ms < 200; ms++) for (let k = 0; k < 3; k++) ids.push(newId('event', base + ms));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(idTimeMs)).toEqual(ids.map((_, i) => base + Math.floor(i / 3)));
    // First ids of consecutive milliseconds share no random prefix a guesser could build on.
    const firsts = ids.filter((_, i) => i % 3 === 0).map((id) => body(id).slice(10, 14));
    expect(new Set(firsts).size).toBeGreaterThan(190);
  });

  it('keeps the order when the clock steps back', () => {
    const a = newId('job', Date.now() + 180_000);
    const b = newId('job', Date.now());
    expect(b > a).toBe(true);
    expect(idTimeMs(b)).toBe(idTimeMs(a));
  });
});
