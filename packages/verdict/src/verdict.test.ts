import { describe, expect, it } from 'vitest';
import { checkLists } from './lists.ts';
import { providerForMx } from './provider.ts';
import type { ReplyClass } from './reply-types.ts';
import type { VerificationResult } from './result-types.ts';
import { checkSyntax } from './syntax.ts';
import { precheck, verdict } from './verdict.ts';
import type { DnsOutcome, ProbeOutcome, VerdictInput } from './verdict.ts';

const NOW = new Date('2025-03-01T12:00:00Z');
const OK_DNS: DnsOutcome = { kind: 'ok', mx: ['mx.acme.com'], provider: providerForMx('mx.acme.com') };
const YAHOO_DNS: DnsOutcome = { kind: 'ok', mx: ['mta5.am0.yahoodns.net'], provider: providerForMx('mta5.am0.yahoodns.net') };

function probe(rcpt: ReplyClass | null, catchAll: ReplyClass | null = 'mailbox_absent', extra: Partial<ProbeOutcome> = {}): ProbeOutcome {
  return { rcpt: rcpt && { class: rcpt, rule: 'test' }, catchAll: catchAll && { class: catchAll, rule: 'test' }, session: 'completed', attempts: 1, ...extra };
}

function run(email: string, rest: Partial<VerdictInput> = {}): VerificationResult {
  return verdict({ email, syntax: checkSyntax(email), now: NOW, ...rest });
}

describe('verdict outcomes', () => {
  const cases: { name: string; email?: string; input: Partial<VerdictInput>; status: string; sub: string; score: number | [number, number]; action: string; safe: string }[] = [
    { name: 'mailbox confirmed', input: { dns: OK_DNS, probe: probe('accepted') }, status: 'deliverable', sub: 'mailbox_confirmed', score: 99, action: 'send', safe: 'yes' },
    { name: 'catch-all probe skipped, accepted', input: { dns: OK_DNS, probe: probe('accepted', null) }, status: 'deliverable', sub: 'mailbox_confirmed', score: 99, action: 'send', safe: 'yes' },
    { name: 'catch-all accepted', input: { dns: OK_DNS, probe: probe('accepted', 'accepted') }, status: 'risky', sub: 'catch_all', score: 65, action: 'review', safe: 'caution' },
    { name: 'accept-all provider (Yahoo)', email: 'jane@yahoo.com', input: { dns: YAHOO_DNS, probe: probe('accepted', null) }, status: 'risky', sub: 'accept_all_provider', score: 61, action: 'review', safe: 'caution' },
    { name: 'Yahoo rejecting at RCPT is still final', email: 'jane@yahoo.com', input: { dns: YAHOO_DNS, probe: probe('mailbox_absent', null) }, status: 'undeliverable', sub: 'mailbox_absent', score: 5, action: 'drop', safe: 'no' },
    { name: 'mailbox absent', input: { dns: OK_DNS, probe: probe('mailbox_absent') }, status: 'undeliverable', sub: 'mailbox_absent', score: 5, action: 'drop', safe: 'no' },
    { name: 'mailbox full', input: { dns: OK_DNS, probe: probe('mailbox_full') }, status: 'risky', sub: 'mailbox_full', score: 20, action: 'drop', safe: 'no' },
    { name: 'policy block, no other IP', input: { dns: OK_DNS, probe: probe('policy_blocked') }, status: 'unknown', sub: 'provider_blocked', score: 30, action: 'review', safe: 'caution' },
    { name: '252 cannot verify', input: { dns: OK_DNS, probe: probe('will_not_verify', null) }, status: 'unknown', sub: 'no_signal', score: 30, action: 'review', safe: 'caution' },
    { name: 'unexplained 5xx', input: { dns: OK_DNS, probe: probe('permanent_other') }, status: 'unknown', sub: 'no_signal', score: 30, action: 'review', safe: 'caution' },
    { name: 'greylist ladder ran out', input: { dns: OK_DNS, probe: probe('greylisted', null, { attempts: 6 }) }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'still throttled', input: { dns: OK_DNS, probe: probe('throttled') }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'too many recipients', input: { dns: OK_DNS, probe: probe('too_many_recipients') }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'session timed out', input: { dns: OK_DNS, probe: probe(null, null, { session: 'timeout' }) }, status: 'unknown', sub: 'timeout', score: 30, action: 'review', safe: 'caution' },
    { name: 'connect failed', input: { dns: OK_DNS, probe: probe(null, null, { session: 'connect_failed' }) }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'null MX', input: { dns: { kind: 'null_mx' } }, status: 'undeliverable', sub: 'domain_absent', score: 0, action: 'drop', safe: 'no' },
    { name: 'NXDOMAIN', input: { dns: { kind: 'nxdomain' } }, status: 'undeliverable', sub: 'domain_absent', score: 0, action: 'drop', safe: 'no' },
    { name: 'no mail host', input: { dns: { kind: 'no_mail_host' } }, status: 'undeliverable', sub: 'domain_absent', score: 0, action: 'drop', safe: 'no' },
    { name: 'every MX host NXDOMAIN', input: { dns: { kind: 'mx_hosts_absent' } }, status: 'undeliverable', sub: 'domain_absent', score: 0, action: 'drop', safe: 'no' },
    { name: 'SERVFAIL', input: { dns: { kind: 'servfail' } }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'DNS timeout', input: { dns: { kind: 'timeout' } }, status: 'unknown', sub: 'timeout', score: 30, action: 'review', safe: 'caution' },
    { name: 'our resolver denies names that exist: never domain_absent', input: { dns: { kind: 'resolver_unreliable', detail: 'it says gmail.com does not exist' } }, status: 'unknown', sub: 'temp_failure', score: 30, action: 'review', safe: 'caution' },
    { name: 'deadline', input: { dns: OK_DNS, deadlineReached: true }, status: 'unknown', sub: 'deadline', score: 30, action: 'review', safe: 'caution' },
    { name: 'not probed', input: { dns: OK_DNS }, status: 'unknown', sub: 'no_signal', score: 30, action: 'review', safe: 'caution' },
    { name: 'syntax', email: 'john..doe@acme.com', input: {}, status: 'undeliverable', sub: 'syntax', score: 0, action: 'drop', safe: 'no' },
    { name: 'disposable, no probe needed', email: 'john@mailinator.com', input: {}, status: 'risky', sub: 'disposable', score: 10, action: 'drop', safe: 'no' },
    { name: 'disposable beats an accepting probe', email: 'john@mailinator.com', input: { dns: OK_DNS, probe: probe('accepted') }, status: 'risky', sub: 'disposable', score: 10, action: 'drop', safe: 'no' },
    { name: 'role + free deliverable', email: 'info@gmail.com', input: { dns: OK_DNS, probe: probe('accepted', null) }, status: 'deliverable', sub: 'mailbox_confirmed', score: 94, action: 'send', safe: 'yes' },
    { name: 'gibberish catch-all', email: 'xk7qpz9w@acme.com', input: { dns: OK_DNS, probe: probe('accepted', 'accepted') }, status: 'risky', sub: 'catch_all', score: 59, action: 'review', safe: 'caution' },
  ];
  it.each(cases)('$name', (c) => {
    const r = run(c.email ?? 'jane.doe@acme.com', c.input);
    expect([r.status, r.sub_status, r.decision.action, r.safe_to_send]).toEqual([c.status, c.sub, c.action, c.safe]);
    expect(r.score).toBe(c.score);
    expect(r.decision.retry_after_seconds !== undefined).toBe(c.status === 'unknown');
    expect(r.reason.length).toBeGreaterThan(10);
  });
});

describe('verdict scores stay in the spec bands', () => {
  const allSignals = { disposable: false, free: true, role: true, roleWord: 'info', gibberish: true, didYouMean: 'x@gmail.com' };
  it.each([
    ['mailbox_confirmed', probe('accepted'), OK_DNS, 90, 99],
    ['catch_all', probe('accepted', 'accepted'), OK_DNS, 50, 69],
    ['accept_all_provider', probe('accepted', null), YAHOO_DNS, 50, 69],
  ] as const)('%s with every penalty stays within %i..%i', (sub, p, dns, min, max) => {
    const r = run('jane@acme.com', { dns, probe: p, lists: allSignals });
    expect(r.sub_status).toBe(sub);
    expect(r.score).toBeGreaterThanOrEqual(min);
    expect(r.score).toBeLessThanOrEqual(max);
    expect(r.score).toBe(min);
  });
});

describe('verdict result object', () => {
  it('fills every spec field', () => {
    const email = 'Info@Gmial.com';
    const r = verdict({ email, syntax: checkSyntax(email), lists: checkLists({ local: 'Info', domain: 'gmial.com' }), dns: OK_DNS, probe: probe('accepted', 'mailbox_absent', { attempts: 2 }), now: NOW, ref: 'crm-42', domainHealthScore: 71 });
    expect(r).toEqual({
      email,
      ref: 'crm-42',
      status: 'risky',
      sub_status: 'disposable',
      score: 10,
      safe_to_send: 'no',
      flags: { catch_all: false, role: true, free: false, disposable: true, gibberish: false },
      did_you_mean: 'Info@gmail.com',
      domain: { name: 'gmial.com', mx_provider: 'acme.com', health_score: 71 },
      reason: expect.any(String),
      attempts: 2,
      cached: false,
      checked_at: '2025-03-01T12:00:00.000Z',
      decision: { action: 'drop', why: expect.any(String) },
    });
  });

  it('sets retry_after_seconds per unknown reason, and lets the caller override it', () => {
    expect(run('a@acme.com', { dns: { kind: 'timeout' } }).decision.retry_after_seconds).toBe(900);
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('policy_blocked') }).decision.retry_after_seconds).toBe(3600);
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('will_not_verify') }).decision.retry_after_seconds).toBe(86400);
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('greylisted'), retryAfterSeconds: 120 }).decision.retry_after_seconds).toBe(120);
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('accepted'), retryAfterSeconds: 120 }).decision.retry_after_seconds).toBeUndefined();
  });

  it('flags catch_all for catch-all and accept-all results only', () => {
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('accepted', 'accepted') }).flags.catch_all).toBe(true);
    expect(run('a@yahoo.com', { dns: YAHOO_DNS, probe: probe('accepted', null) }).flags.catch_all).toBe(true);
    expect(run('a@acme.com', { dns: OK_DNS, probe: probe('accepted') }).flags.catch_all).toBe(false);
  });

  it('names the domain and provider even when nothing resolved', () => {
    const r = run('x@@acme.com');
    expect(r.domain).toEqual({ name: 'acme.com', mx_provider: 'unknown', health_score: 50 });
    expect(run('x@acme.com', { dns: { kind: 'nxdomain' } }).domain).toEqual({ name: 'acme.com', mx_provider: 'none', health_score: 0 });
    expect(run('x@acme.com', { dns: { kind: 'mx_hosts_absent' } }).domain).toEqual({ name: 'acme.com', mx_provider: 'none', health_score: 0 });
  });
});

describe('precheck', () => {
  it.each([
    ['bad@@acme.com', 'syntax'],
    ['x@mailinator.com', 'disposable'],
  ])('%s ends at once as %s', (email, sub) => {
    const p = precheck(email, NOW);
    expect(p.result?.sub_status).toBe(sub);
    expect(p.result?.attempts).toBe(0);
  });
  it('leaves other addresses to DNS and the probe', () => {
    const p = precheck('sales@acme.com', NOW);
    expect(p.result).toBeNull();
    expect(p.lists?.role).toBe(true);
  });
});
