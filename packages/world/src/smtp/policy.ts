// The decisions a scripted host makes, from its behaviour data and what it remembers across sessions.
import type { SmtpBehaviour, SmtpHostSpec } from '../schema.ts';
import { REPLIES } from './replies.ts';

export interface ConnectVerdict {
  // A reply that replaces the greeting and ends the session.
  refusal?: string;
  // Rate limited, answered at MAIL FROM instead of the greeting.
  limitAtMail: boolean;
}

export interface RcptContext {
  clientIp: string;
  mailFrom: string;
  recipient: string;
  // 1-based count of RCPT commands in this session, this one included.
  rcptNumber: number;
}

// State shared by all sessions of one host: greylist triplets and recent sessions per client.
export class HostPolicy {
  private readonly behaviour: SmtpBehaviour;
  private readonly mailboxes: Set<string>;
  private readonly fullMailboxes: Set<string>;
  private readonly greylistFirstSeenMs = new Map<string, number>();
  private readonly sessionStartsMs = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(spec: SmtpHostSpec, now: () => number = Date.now) {
    this.behaviour = spec.behaviour;
    this.mailboxes = new Set(spec.mailboxes);
    this.fullMailboxes = new Set(spec.behaviour.mailboxFull);
    this.now = now;
  }

  reset(): void {
    this.greylistFirstSeenMs.clear();
    this.sessionStartsMs.clear();
  }

  onConnect(clientIp: string): ConnectVerdict {
    const limited = this.countSession(clientIp);
    const b = this.behaviour;
    if (b.policyBlockAt === 'greeting' && this.isBlocked(clientIp)) return { refusal: REPLIES.policyBlocked(clientIp), limitAtMail: false };
    if (limited && b.rateLimitAt === 'greeting') return { refusal: REPLIES.rateLimited, limitAtMail: false };
    return { limitAtMail: limited };
  }

  // Order follows Postfix: client restrictions, recipient limit, policy service (Postgrey), then the
  // mailbox lookup; greylisting therefore hides whether a mailbox exists on the first attempt.
  onRcpt(ctx: RcptContext): string {
    const b = this.behaviour;
    const address = ctx.recipient.toLowerCase();
    if (b.policyBlockAt === 'rcpt' && this.isBlocked(ctx.clientIp)) return REPLIES.policyBlocked(ctx.clientIp);
    if (b.maxRecipientsPerSession !== undefined && ctx.rcptNumber > b.maxRecipientsPerSession) return REPLIES.tooManyRecipients;
    if (b.temporaryFailure) return REPLIES.temporaryFailure(ctx.recipient);
    if (b.greylistSeconds !== undefined && this.isGreylisted(ctx.clientIp, ctx.mailFrom, address)) {
      return REPLIES.greylisted(ctx.recipient, domainOf(address));
    }
    if (this.fullMailboxes.has(address)) return REPLIES.mailboxFull(ctx.recipient);
    if (b.willNotVerify) return REPLIES.rcptCannotVerify;
    if (b.catchAll || b.acceptAllAtRcpt || this.mailboxes.has(address)) return REPLIES.rcptOk;
    return REPLIES.unknownUser(ctx.recipient);
  }

  private isBlocked(clientIp: string): boolean {
    return this.behaviour.policyBlockAll || this.behaviour.policyBlockIps.includes(clientIp);
  }

  // True when this session is beyond the allowance; every attempt counts, as with Postfix's anvil.
  private countSession(clientIp: string): boolean {
    const limit = this.behaviour.rateLimitAfterSessions;
    if (limit === undefined) return false;
    const nowMs = this.now();
    const windowStartMs = nowMs - this.behaviour.rateLimitWindowSeconds * 1000;
    const recent = (this.sessionStartsMs.get(clientIp) ?? []).filter((t) => t > windowStartMs);
    recent.push(nowMs);
    this.sessionStartsMs.set(clientIp, recent);
    return recent.length > limit;
  }

  private isGreylisted(clientIp: string, mailFrom: string, recipient: string): boolean {
    const key = `${clientIp}\u0000${mailFrom.toLowerCase()}\u0000${recipient}`;
    const nowMs = this.now();
    const firstSeenMs = this.greylistFirstSeenMs.get(key);
    if (firstSeenMs === undefined) {
      this.greylistFirstSeenMs.set(key, nowMs);
      return true;
    }
    return nowMs - firstSeenMs < (this.behaviour.greylistSeconds ?? 0) * 1000;
  }
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
