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
