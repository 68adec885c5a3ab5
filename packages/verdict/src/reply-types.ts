export const REPLY_CLASS = {
  accepted: 'accepted',
  mailboxAbsent: 'mailbox_absent',
  mailboxFull: 'mailbox_full',
  greylisted: 'greylisted',
  throttled: 'throttled',
  tooManyRecipients: 'too_many_recipients',
  policyBlocked: 'policy_blocked',
  willNotVerify: 'will_not_verify',
  temporaryOther: 'temporary_other',
  permanentOther: 'permanent_other',
} as const;
export type ReplyClass = (typeof REPLY_CLASS)[keyof typeof REPLY_CLASS];

/** One row of the reply table: every condition given must hold; the first matching row wins. */
export interface ReplyRule {
  /** Stable name, returned with the classification and logged. */
  id: string;
  class: ReplyClass;
  /** Tested against the three-digit reply code, e.g. /^25[01]$/. */
  code?: RegExp;
  /** Tested against the enhanced status code (RFC 3463), e.g. /^5\.1\.1$/. */
  enhanced?: RegExp;
  /** Tested against the reply text (all lines joined, enhanced codes removed). */
  text?: RegExp;
  /** Why this row exists (its source, or the rule it applies). */
  why: string;
}

export interface SmtpReply {
  code: number;
  enhanced?: string | null;
  text?: string;
}

export interface ClassifiedReply {
  class: ReplyClass;
  /** The id of the rule that matched. */
  rule: string;
}
