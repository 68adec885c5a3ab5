import { describe, expect, it } from 'vitest';
import { TtlCache } from './cache.ts';

describe('TtlCache', () => {
  it('keeps an entry for its TTL and gives the remaining whole seconds, rounded up', () => {
    let now = 0; // a clock starting at 0 (lru-cache reads a start of 0 as "no TTL")
    const c = new TtlCache<string>({ maxEntries: 10, nowMs: () => now });
    c.set('a', 'x', 60);
    expect(c.get('a')).toEqual({ value: 'x', remainingS: 60 });
    now = 59_500;
    expect(c.get('a')).toEqual({ value: 'x', remainingS: 1 });
    now = 60_001;
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('evicts the least recently used: a hit protects an entry', () => {
    const c = new TtlCache<number>({ maxEntries: 2 });
    c.set('a', 1, 60);
    c.set('b', 2, 60);
    expect(c.get('a')?.value).toBe(1);
    c.set('c', 3, 60);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')?.value).toBe(1);
    expect(c.get('c')?.value).toBe(3);
  });

  it('stays at its cap under constant churn, holding the newest entries', () => {
    const c = new TtlCache<number>({ maxEntries: 1000 });
    for (let i = 0; i < 50_000; i++) c.set(`k${i}`, i, 60);
    expect(c.size).toBe(1000);
    expect(c.get('k48999')).toBeUndefined();
    expect(c.get('k49000')?.value).toBe(49_000);
    expect(c.get('k49999')?.value).toBe(49_999);
  });

  it('replaces an entry and its TTL', () => {
    let now = 1_000;
    const c = new TtlCache<string>({ maxEntries: 10, nowMs: () => now });
    c.set('a', 'old', 10);
    now += 5_000;
    c.set('a', 'new', 30);
    expect(c.get('a')).toEqual({ value: 'new', remainingS: 30 });
    expect(c.size).toBe(1);
  });

  it('stores nothing with no room or no TTL', () => {
    const none = new TtlCache<string>({ maxEntries: 0 });
    none.set('a', 'x', 60);
    expect(none.get('a')).toBeUndefined();
    const c = new TtlCache<string>({ maxEntries: 10 });
    c.set('a', 'x', 0);
    expect(c.get('a')).toBeUndefined();
    c.set('b', 'y', 60);
    c.clear();
    expect(c.get('b')).toBeUndefined();
  });
});
