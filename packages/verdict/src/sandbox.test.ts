import { describe, expect, it } from 'vitest';
import { sandboxResult } from './sandbox.ts';

const NOW = new Date('2025-03-01T12:00:00Z');

describe('sandboxResult', () => {
  const cases: { email: string; status: string; sub: string; score: number; action: string }[] = [
    { email: 'invalid@example.com', status: 'undeliverable', sub: 'mailbox_absent', score: 5, action: 'drop' },
    { email: 'john.INVALID.doe@example.com', status: 'undeliverable', sub: 'mailbox_absent', score: 5, action: 'drop' },
    { email: 'catchall@example.com', status: 'risky', sub: 'catch_all', score: 65, action: 'review' },
    { email: 'unknown@example.com', status: 'unknown', sub: 'no_signal', score: 30, action: 'review' },
    { email: 'full@example.com', status: 'risky', sub: 'mailbox_full', score: 20, action: 'drop' },
    { email: 'disposable@example.com', status: 'risky', sub: 'disposable', score: 10, action: 'drop' },
    { email: 'jane@example.com', status: 'deliverable', sub: 'mailbox_confirmed', score: 99, action: 'send' },
    // first match in table order: invalid, catchall, unknown, full, disposable
    { email: 'full.invalid@example.com', status: 'undeliverable', sub: 'mailbox_absent', score: 5, action: 'drop' },
    { email: 'unknown-catchall@example.com', status: 'risky', sub: 'catch_all', score: 65, action: 'review' },
    { email: 'disposable.full@example.com', status: 'risky', sub: 'mailbox_full', score: 20, action: 'drop' },
    // the table decides disposability, not the real list
    { email: 'jane@mailinator.com', status: 'deliverable', sub: 'mailbox_confirmed', score: 99, action: 'send' },
    // syntax is checked first, even in sandbox
    { email: 'invalid@@example.com', status: 'undeliverable', sub: 'syntax', score: 0, action: 'drop' },
    { email: 'catchall@[192.0.2.1]', status: 'undeliverable', sub: 'syntax', score: 0, action: 'drop' },
    // real local signals still shape the score like in live mode
    { email: 'sales@gmail.com', status: 'deliverable', sub: 'mailbox_confirmed', score: 94, action: 'send' },
  ];
  it.each(cases)('$email -> $status/$sub', (c) => {
    const r = sandboxResult(c.email, NOW);
    expect([r.status, r.sub_status, r.score, r.decision.action]).toEqual([c.status, c.sub, c.score, c.action]);
    expect(r.email).toBe(c.email);
    expect(r.checked_at).toBe(NOW.toISOString());
  });

  it('is deterministic and carries the full result object', () => {
    const a = sandboxResult('unknown@example.com', NOW, 'ref-1');
    expect(sandboxResult('unknown@example.com', NOW, 'ref-1')).toEqual(a);
    expect(a).toMatchObject({ ref: 'ref-1', cached: false, attempts: 1, domain: { name: 'example.com', mx_provider: 'sandbox' }, decision: { retry_after_seconds: 86400 } });
    expect(sandboxResult('disposable@example.com', NOW).flags.disposable).toBe(true);
    expect(sandboxResult('catchall@example.com', NOW).flags.catch_all).toBe(true);
  });
});
