// The verdict: a pure function from everything learned about an address to the spec's result
// object. The scheduler calls it when nextAction() says "final", when the ladder runs out, or
// at once when local checks end the item (syntax, disposable: see precheck()).
import { HEALTH_SCORE_FALLBACK } from './data/scoring.ts';
import { checkLists } from './lists.ts';
import type { ListSignals } from './lists.ts';
import type { ProviderRow } from './provider-types.ts';
import type { ClassifiedReply } from './reply-types.ts';
import type { VerificationResult } from './result-types.ts';
import { decisionFor, safeToSendFor, scoreFor } from './scoring.ts';
import type { Outcome } from './scoring.ts';
import { checkSyntax } from './syntax.ts';
import type { SyntaxResult } from './syntax.ts';

export type DnsOutcome =
  | { kind: 'ok'; mx: readonly string[]; provider: ProviderRow; implicit?: boolean }
  | { kind: 'null_mx' }
  | { kind: 'nxdomain' }
  | { kind: 'no_mail_host' }
  /** MX records exist but no MX host name has an A or AAAA record (RFC 5321 5.1: no fallback to the domain's own address). */
  | { kind: 'mx_hosts_absent' }
  | { kind: 'servfail' }
  | { kind: 'timeout' }
  /** Our resolver denies names that certainly exist, or answers every name alike: nothing it says about the domain is believed. */
  | { kind: 'resolver_unreliable'; detail?: string };

/** mx_refused: the probe refused every MX address as private or special-purpose; nothing was dialled. */
export type SessionOutcome = 'completed' | 'connect_failed' | 'timeout' | 'dropped' | 'tls_failed' | 'mx_refused';

export interface ProbeOutcome {
  /** The classified reply to this address's RCPT (the last attempt's); null when none came. */
  rcpt: ClassifiedReply | null;
  /** The classified reply to the random-address catch-all probe; null when skipped or not reached. */
  catchAll: ClassifiedReply | null;
  session: SessionOutcome;
  /** Probing attempts made so far (the spec's `attempts`). */
  attempts: number;
}

export interface VerdictInput {
  /** The address as submitted (echoed as `email`). */
  email: string;
  syntax: SyntaxResult;
  /** Local signals; computed from the syntax result when omitted. */
  lists?: ListSignals;
  dns?: DnsOutcome;
  probe?: ProbeOutcome;
  now: Date;
  ref?: string | null;
  /** The item's job deadline passed before a verdict was reached. */
  deadlineReached?: boolean;
  /** From the mailsec engine; HEALTH_SCORE_FALLBACK otherwise. */
  domainHealthScore?: number;
  /** Overrides decision.retry_after_seconds of unknown results (e.g. a known pause end). */
  retryAfterSeconds?: number;
}

const o = (status: Outcome['status'], sub_status: Outcome['sub_status'], reason: string): Outcome => ({ status, sub_status, reason });

function fromReply(rcpt: ClassifiedReply, probe: ProbeOutcome, provider: ProviderRow | null): Outcome {
  switch (rcpt.class) {
    case 'accepted':
      if (provider?.quirks.acceptsAllAtRcpt) {
        return o('risky', 'accept_all_provider', `${provider.name} accepts every address at RCPT, so acceptance proves nothing`);
      }
      if (probe.catchAll?.class === 'accepted') {
        return o('risky', 'catch_all', 'the server also accepted a random address: the domain accepts all mail');
      }
      return o('deliverable', 'mailbox_confirmed', 'the mail server confirmed the mailbox');
    case 'mailbox_absent':
      return o('undeliverable', 'mailbox_absent', 'the mail server says the mailbox does not exist');
    case 'mailbox_full':
      return o('risky', 'mailbox_full', 'the mailbox exists but is full');
    case 'policy_blocked':
      return o('unknown', 'provider_blocked', 'the mail server refused our probe by policy; the address was not judged');
    case 'will_not_verify':
      return o('unknown', 'no_signal', 'the mail server does not verify addresses (252)');
    case 'permanent_other':
      return o('unknown', 'no_signal', 'the mail server refused without saying whether the mailbox exists');
    case 'greylisted':
      return o('unknown', 'temp_failure', 'the mail server kept deferring (greylisting) until the retries ran out');
    case 'throttled':
      return o('unknown', 'temp_failure', 'the mail server kept rate-limiting our probes until the retries ran out');
    case 'too_many_recipients':
    case 'temporary_other':
      return o('unknown', 'temp_failure', 'the mail server kept answering with a temporary failure');
  }
}

function outcomeOf(input: VerdictInput, lists: ListSignals | null): Outcome {
  const { syntax, dns, probe } = input;
  if (!syntax.ok) return o('undeliverable', 'syntax', `invalid address: ${syntax.reason}`);
  if (lists?.disposable) return o('risky', 'disposable', 'the domain provides disposable (throwaway) addresses');
  if (dns && (dns.kind === 'null_mx' || dns.kind === 'nxdomain' || dns.kind === 'no_mail_host' || dns.kind === 'mx_hosts_absent')) {
    const why = {
      null_mx: 'the domain publishes a null MX: it takes no mail',
      nxdomain: 'the domain does not exist',
      no_mail_host: 'the domain has no MX and no address record',
      mx_hosts_absent: "none of the domain's MX hosts exists (no A or AAAA record): its mail cannot be delivered",
    }[dns.kind];
    return o('undeliverable', 'domain_absent', why);
  }
  if (input.deadlineReached) return o('unknown', 'deadline', "the job's deadline passed before the check finished");
  if (!dns) return o('unknown', 'no_signal', 'the domain was not looked up');
  if (dns.kind === 'servfail') return o('unknown', 'temp_failure', 'DNS lookups for the domain kept failing');
  if (dns.kind === 'timeout') return o('unknown', 'timeout', 'DNS lookups for the domain timed out');
  if (dns.kind === 'resolver_unreliable') {
    return o('unknown', 'temp_failure', `our DNS resolver is unreliable right now${dns.detail ? ` (${dns.detail})` : ''}, so the domain was not judged`);
  }
  if (!probe) return o('unknown', 'no_signal', 'the mail server was not probed');
  if (probe.rcpt === null && probe.session === 'mx_refused') {
    // Never undeliverable: the domain may be fine and merely point at a network we do not probe.
    return o('unknown', 'no_signal', "the domain's mail servers resolve only to private or special-purpose addresses, which are never probed");
  }
  if (probe.rcpt === null) {
    return probe.session === 'timeout'
      ? o('unknown', 'timeout', 'the mail server did not answer in time')
      : o('unknown', 'temp_failure', 'no SMTP session with the mail server could be completed');
  }
  return fromReply(probe.rcpt, probe, dns.provider);
}

function mxProviderOf(dns: DnsOutcome | undefined): string {
  if (!dns) return 'unknown';
  if (dns.kind === 'ok') return dns.provider.id;
  return dns.kind === 'servfail' || dns.kind === 'timeout' || dns.kind === 'resolver_unreliable' ? 'unknown' : 'none';
}

function healthFallback(dns: DnsOutcome | undefined): number {
  if (!dns) return HEALTH_SCORE_FALLBACK.unchecked;
  if (dns.kind === 'ok') return dns.implicit ? HEALTH_SCORE_FALLBACK.ok_implicit : HEALTH_SCORE_FALLBACK.ok;
  return HEALTH_SCORE_FALLBACK[dns.kind];
}

export function verdict(input: VerdictInput): VerificationResult {
  const { syntax } = input;
  const lists = syntax.ok ? (input.lists ?? checkLists(syntax)) : null;
  const outcome = outcomeOf(input, lists);
  const decision = decisionFor(outcome, outcome.status === 'unknown' ? input.retryAfterSeconds : undefined);
  const domainName = syntax.ok ? syntax.domain : (/@([^@]*)$/.exec(input.email.trim())?.[1] ?? '').toLowerCase();
  return {
    email: input.email,
    ref: input.ref ?? null,
    status: outcome.status,
    sub_status: outcome.sub_status,
    score: scoreFor(outcome, lists ?? undefined),
    safe_to_send: safeToSendFor(decision),
    flags: {
      catch_all: outcome.sub_status === 'catch_all' || outcome.sub_status === 'accept_all_provider',
      role: lists?.role ?? false,
      free: lists?.free ?? false,
      disposable: lists?.disposable ?? false,
      gibberish: lists?.gibberish ?? false,
    },
    did_you_mean: lists?.didYouMean ?? null,
    domain: { name: domainName, mx_provider: mxProviderOf(input.dns), health_score: input.domainHealthScore ?? healthFallback(input.dns) },
    reason: outcome.reason,
    attempts: input.probe?.attempts ?? 0,
    cached: false,
    checked_at: input.now.toISOString(),
    decision,
  };
}

export interface Precheck {
  syntax: SyntaxResult;
  lists: ListSignals | null;
  /** The final result when local checks already decide (syntax failure, disposable domain). */
  result: VerificationResult | null;
}

/** The scheduler's first step: checks that need no network, and whether they end the item. */
export function precheck(email: string, now: Date, ref: string | null = null): Precheck {
  const syntax = checkSyntax(email);
  const lists = syntax.ok ? checkLists(syntax) : null;
  const ends = !syntax.ok || lists?.disposable === true;
  return { syntax, lists, result: ends ? verdict({ email, syntax, lists: lists ?? undefined, now, ref }) : null };
}
