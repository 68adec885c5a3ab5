// LocalFacts (pure bookkeeping, no Redis): what a replica keeps when Redis refuses a decision.
import { describe, expect, it } from 'vitest';
import { LocalFacts } from './local-facts.ts';

describe('LocalFacts', () => {
  it('closes the gate of its (provider, IP) only, for the longest fact, until it ends', () => {
    const f = new LocalFacts({ retryMs: 60_000 });
    const now = Date.now();
    f.hold('pause', 'gmail', '10.0.0.1', 600_000, 'paused', async () => undefined);
    f.hold('block', 'gmail', '10.0.0.1', 3_600_000, 'blocked', async () => undefined);
    f.hold('rcpts', 'gmail', '', 86_400_000, null, async () => undefined);
    expect(f.gate('gmail', '10.0.0.1', now)).toMatchObject({ reason: 'blocked' });
    expect(f.gate('gmail', '10.0.0.1', now)!.waitMs).toBeGreaterThan(3_500_000);
    expect(f.gate('gmail', '10.0.0.2', now)).toBeNull();
    expect(f.gate('yahoo', '10.0.0.1', now)).toBeNull();
    // A learned limit closes no gate.
    expect(f.gate('gmail', '', now)).toBeNull();
    expect(f.gate('gmail', '10.0.0.1', now + 3_600_001)).toBeNull();
    f.stop();
  });

  it('writes again with the time left until Redis takes it, once', async () => {
    const f = new LocalFacts({ retryMs: 60_000 });
    const writes: number[] = [];
    let redisUp = false;
    const t0 = Date.now();
    f.hold('pause', 'gmail', '10.0.0.1', 600_000, 'paused', async (left) => {
      writes.push(left);
      if (!redisUp) throw new Error('Stream isn’t writeable');
    });
    await f.flush(t0 + 1_000);
    expect(f.pending).toBe(1);
    redisUp = true;
    await f.flush(t0 + 2_000);
    expect(f.pending).toBe(0);
    await f.flush(t0 + 3_000);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBeLessThanOrEqual(600_000 - 2_000 + 50);
    expect(writes[1]).toBeGreaterThan(590_000);
    // Still honoured here after it was written; gone once it ended.
    expect(f.gate('gmail', '10.0.0.1', t0 + 3_000)).not.toBeNull();
    await f.flush(t0 + 700_000);
    expect(f.gate('gmail', '10.0.0.1', t0 + 700_000)).toBeNull();
    f.stop();
  });

  it('a fact that ends while Redis is down is dropped, not written late', async () => {
    const f = new LocalFacts({ retryMs: 60_000 });
    let writes = 0;
    const t0 = Date.now();
    f.hold('block', 'gmail', '10.0.0.1', 5_000, 'blocked', async () => {
      writes++;
      throw new Error('down');
    });
    await f.flush(t0 + 10_000);
    expect(writes).toBe(0);
    expect(f.pending).toBe(0);
  });
});
