// The verification result object the API returns (docs/verdict.md "Verdict").

export const STATUS = {
  deliverable: 'deliverable',
  undeliverable: 'undeliverable',
  risky: 'risky',
  unknown: 'unknown',
} as const;
export type Status = (typeof STATUS)[keyof typeof STATUS];

export const SUB_STATUS = {
  mailboxConfirmed: 'mailbox_confirmed',
  mailboxAbsent: 'mailbox_absent',
  domainAbsent: 'domain_absent',
  syntax: 'syntax',
  catchAll: 'catch_all',
  acceptAllProvider: 'accept_all_provider',
  mailboxFull: 'mailbox_full',
  disposable: 'disposable',
  providerBlocked: 'provider_blocked',
  tempFailure: 'temp_failure',
  timeout: 'timeout',
  noSignal: 'no_signal',
  deadline: 'deadline',
} as const;
export type SubStatus = (typeof SUB_STATUS)[keyof typeof SUB_STATUS];
export type UnknownSubStatus = 'provider_blocked' | 'temp_failure' | 'timeout' | 'no_signal' | 'deadline';

export type SafeToSend = 'yes' | 'caution' | 'no';
export type DecisionAction = 'send' | 'review' | 'drop';

export interface Flags {
  catch_all: boolean;
  role: boolean;
  free: boolean;
  disposable: boolean;
  gibberish: boolean;
}

export interface Decision {
  action: DecisionAction;
  why: string;
  /** Present on unknown results: seconds after which a fresh check is worth it. */
  retry_after_seconds?: number;
}

export interface VerificationResult {
  email: string;
  ref: string | null;
  status: Status;
  sub_status: SubStatus;
  score: number;
  safe_to_send: SafeToSend;
  flags: Flags;
  did_you_mean: string | null;
  domain: { name: string; mx_provider: string; health_score: number };
  reason: string;
  attempts: number;
  cached: boolean;
  checked_at: string;
  decision: Decision;
}
