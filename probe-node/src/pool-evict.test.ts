// Which idle connections a dial closes (pool.ts evict): those from its own source address to every
// host of its hosts' providers, and no other. The pool indexes idle connections by (source address,
// provider); these cases hold the index to what a scan of every idle connection would close, and
// keep it in step when a connection leaves the pool another way (taken, replaced, past maxIdle,
// idle timer). Fake connections: only QUIT and the close are seen, no server is needed.
import { describe, expect, it } from 'vitest';
import { ConnectionPool, type PooledConnection } from './pool.ts';
import { fakePooledConnection } from './testing.ts';

const S1 = '192.0.2.1';
const S10 = '192.0.2.10'; // S1's address is a prefix of this one's
// Two Microsoft 365 tenants' hosts: one provider. Two hosts of one self-hosted domain: another.
const MS_A = 'a-test.mail.protection.outlook.com';
const MS_B = 'b-test.mail.protection.outlook.com';
const OWN_1 = 'mx1.own.test';
const OWN_2 = 'mx2.own.test';

const fake = (name: string, host: string, log: string[]): PooledConnection => fakePooledConnection(name, log, host, '198.51.100.1');

const closed = (log: string[]) => log.filter((l) => l.endsWith(' closed')).map((l) => l.split(' ')[0]).sort();

function pool(opts: { maxIdle?: number; idleMs?: number } = {}) {
  return new ConnectionPool({ idleMs: opts.idleMs ?? 5_000, maxIdle: opts.maxIdle ?? 50, maxTransactions: 100, quitTimeoutMs: 500 });
}

describe('evict across providers and source addresses', () => {
  it('closes its own source address’s connections to its hosts’ providers, and keeps the rest', async () => {
    const log: string[] = [];
    const p = pool();
    await p.put(S1, fake('s1-msA', MS_A, log));
    await p.put(S1, fake('s1-msB', MS_B, log));
    await p.put(S1, fake('s1-own1', OWN_1, log));
    await p.put(S10, fake('s10-msA', MS_A, log));
    await p.put(S10, fake('s10-own2', OWN_2, log));
    await p.put(undefined, fake('any-msB', MS_B, log));
    expect(p.size).toBe(6);

    // A dial from S1 to a third tenant: both of S1's Microsoft connections go, not S10's nor the
    // source-less one, and not S1's self-hosted one.
    await p.evict(S1, ['c-test.mail.protection.outlook.com']);
    expect(closed(log)).toEqual(['s1-msA', 's1-msB']);
    expect(log.filter((l) => l.endsWith('QUIT')).sort()).toEqual(['s1-msA QUIT', 's1-msB QUIT']);
    expect(p.size).toBe(4);

    // A dial from S10 whose MX list names both providers: both of S10's go.
    await p.evict(S10, [OWN_1, MS_B]);
    expect(closed(log)).toEqual(['s1-msA', 's1-msB', 's10-msA', 's10-own2']);
    expect(p.size).toBe(2);

    // Nothing left there: evicting again closes nothing.
    await p.evict(S10, [OWN_1, MS_B]);
    await p.evict(S1, [MS_A]);
    expect(p.size).toBe(2);

    expect(p.take(S1, OWN_1)?.host).toBe(OWN_1);
    expect(p.take(S1, MS_A)).toBeNull();
    await p.evict(undefined, [MS_A]);
    expect(closed(log)).toEqual(['any-msB', 's1-msA', 's1-msB', 's10-msA', 's10-own2']);
    expect(p.size).toBe(0);
  });

  it('never closes again a connection that left the pool another way', async () => {
    const log: string[] = [];
    const p = pool({ maxIdle: 2 });
    await p.put(S1, fake('a', MS_A, log));
    await p.put(S1, fake('b', OWN_1, log));
    // Past maxIdle: the oldest ("a") is closed.
    await p.put(S10, { ...fake('c', MS_B, log), errors: 2 });
    await new Promise((r) => setTimeout(r, 10));
    expect(closed(log)).toEqual(['a']);
    // Taken by a session: not the pool's to close.
    expect(p.take(S1, OWN_1)?.host).toBe(OWN_1);
    await p.evict(S1, [MS_B, OWN_2]);
    expect(closed(log)).toEqual(['a']);
    // Replaced by one with fewer errors (same source, same host): the old one is closed there, once.
    await p.put(S10, fake('d', MS_B, log));
    expect(closed(log)).toEqual(['a', 'c']);
    expect(p.size).toBe(1);
    await p.evict(S10, [MS_A]);
    expect(closed(log)).toEqual(['a', 'c', 'd']);
    expect(p.size).toBe(0);
  });

  it('after the idle timer closed a connection, a dial does not close it again', async () => {
    const log: string[] = [];
    const p = pool({ idleMs: 20 });
    await p.put(S1, fake('a', MS_A, log));
    await new Promise((r) => setTimeout(r, 80));
    expect(closed(log)).toEqual(['a']);
    expect(p.size).toBe(0);
    await p.evict(S1, [MS_B]);
    expect(closed(log)).toEqual(['a']);
  });
});
