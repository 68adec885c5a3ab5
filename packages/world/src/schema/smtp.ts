// SMTP part of a world: scripted MX hosts whose behaviour is data.
import { z } from 'zod';
import { isWorldHostV4 } from '../names.ts';
import { dnsName, durationMs, note } from './common.ts';

export const HOSTILE_MODES = ['garbage', 'flood', 'silent', 'midReplyDisconnect', 'badTls'] as const;
export const DROP_POINTS = ['greeting', 'ehlo', 'mail', 'rcpt'] as const;

const mailbox = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[^\s@<>]+@[^\s@<>]+$/, { message: 'must be local@domain' });

const positiveInt = z.number().int().positive();

export const smtpBehaviourSchema = z
  .strictObject({
    note,
    catchAll: z.boolean().default(false),
    acceptAllAtRcpt: z.boolean().default(false),
    willNotVerify: z.boolean().default(false),
    greylistSeconds: z.number().nonnegative().optional(),
    rateLimitAfterSessions: z.number().int().nonnegative().optional(),
    rateLimitWindowSeconds: z.number().positive().default(60),
    rateLimitAt: z.enum(['greeting', 'mail']).default('greeting'),
    maxRecipientsPerSession: positiveInt.optional(),
    // Every RCPT answered 451 4.3.0 (Postfix whose recipient table cannot be read): a temporary
    // failure that is not greylisting and does not clear on the next attempt.
    temporaryFailure: z.boolean().default(false),
    // Directory-harvest defences, counted per connection and not reset by RSET (Postfix
    // smtpd_soft_error_limit / smtpd_hard_error_limit / smtpd_error_sleep_time).
    softErrorLimit: positiveInt.optional(),
    hardErrorLimit: positiveInt.optional(),
    errorSleepMs: durationMs.default(1000),
    mailboxFull: z.array(mailbox).default([]),
    policyBlockIps: z.array(z.ipv4()).default([]),
    policyBlockAll: z.boolean().default(false),
    policyBlockAt: z.enum(['rcpt', 'greeting']).default('rcpt'),
    tarpitMs: durationMs.default(0),
    latencyMs: durationMs.default(0),
    dropAfter: z.enum(DROP_POINTS).optional(),
    starttls: z.boolean().default(false),
    requireStartTls: z.boolean().default(false),
    pipelining: z.boolean().default(true),
    maxConcurrentSessions: positiveInt.optional(),
    hostile: z.enum(HOSTILE_MODES).optional(),
  })
  .superRefine((b, ctx) => {
    const accepters = (['catchAll', 'acceptAllAtRcpt', 'willNotVerify'] as const).filter((key) => b[key]);
    if (accepters.length > 1) {
      ctx.addIssue({ code: 'custom', message: `choose one of ${accepters.join(', ')}: they all decide the RCPT answer` });
    }
    if (b.hostile !== undefined) {
      // A hostile host does not speak SMTP, so any SMTP behaviour beside it would silently do nothing.
      const allowed = new Set(['note', 'hostile', 'latencyMs', 'tarpitMs', 'rateLimitWindowSeconds', 'rateLimitAt', 'policyBlockAt', 'pipelining', 'errorSleepMs']);
      const conflicting = Object.entries(b).filter(([key, value]) => !allowed.has(key) && isSet(value));
      if (conflicting.length > 0) {
        ctx.addIssue({ code: 'custom', message: `hostile "${b.hostile}" cannot be combined with ${conflicting.map(([key]) => key).join(', ')}` });
      }
    }
  });

function isSet(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== false;
}

export const smtpHostSchema = z.strictObject({
  name: dnsName,
  ip: z.ipv4().refine(isWorldHostV4, { message: 'must be a loopback address (127.0.0.0/8) or one of the cluster harness (198.18.0.0/15)' }).refine((ip) => ip !== '127.0.0.1', {
    message: '127.0.0.1 is reserved for the DNS and RDAP servers',
  }),
  note,
  // Text after "220 <name> " in the greeting.
  banner: z.string().regex(/^[^\r\n]*$/).default('ESMTP Postfix'),
  mailboxes: z.array(mailbox).default([]),
  behaviour: smtpBehaviourSchema.default(smtpBehaviourSchema.parse({})),
});

export const smtpSchema = z.strictObject({
  hosts: z.array(smtpHostSchema).default([]),
});

export type HostileMode = (typeof HOSTILE_MODES)[number];
export type DropPoint = (typeof DROP_POINTS)[number];
export type SmtpBehaviour = z.output<typeof smtpBehaviourSchema>;
export type SmtpHostSpecInput = z.input<typeof smtpHostSchema>;
export type SmtpHostSpec = z.output<typeof smtpHostSchema>;

