// Deterministic sandbox results: the spec's table mapped onto the same verdict() the live path
// uses, so scores, decisions and flags follow the same rules. Syntax is still checked first.
import { SANDBOX_RULES } from './data/sandbox.ts';
import type { SandboxOutcome } from './data/sandbox.ts';
import { checkLists } from './lists.ts';
import type { ProviderRow } from './provider-types.ts';
import type { ClassifiedReply } from './reply-types.ts';
import type { VerificationResult } from './result-types.ts';
import { checkSyntax } from './syntax.ts';
import { verdict } from './verdict.ts';
import type { ProbeOutcome } from './verdict.ts';

export const SANDBOX_PROVIDER: ProviderRow = {
  id: 'sandbox',
  name: 'Sandbox',
  vendor: 'Sandbox',
  kind: 'mailbox_provider',
  patterns: [],
  politeness: { maxConcurrentSessions: 1, newSessionsPerMinute: 60, maxRcptsPerSession: 1 },
  quirks: { skipCatchAllProbe: false, acceptsAllAtRcpt: false },
};

const reply = (cls: ClassifiedReply['class']): ClassifiedReply => ({ class: cls, rule: 'sandbox' });

const PROBES: Record<Exclude<SandboxOutcome, 'disposable'>, ProbeOutcome> = {
  mailbox_confirmed: { rcpt: reply('accepted'), catchAll: reply('mailbox_absent'), session: 'completed', attempts: 1 },
  mailbox_absent: { rcpt: reply('mailbox_absent'), catchAll: reply('mailbox_absent'), session: 'completed', attempts: 1 },
  catch_all: { rcpt: reply('accepted'), catchAll: reply('accepted'), session: 'completed', attempts: 1 },
  no_signal: { rcpt: reply('will_not_verify'), catchAll: null, session: 'completed', attempts: 1 },
  mailbox_full: { rcpt: reply('mailbox_full'), catchAll: reply('mailbox_absent'), session: 'completed', attempts: 1 },
};

/** Which sandbox row an address's local part selects (first match in table order). */
export function sandboxOutcome(localPart: string): SandboxOutcome {
  const local = localPart.toLowerCase();
  return SANDBOX_RULES.find((r) => local.includes(r.contains))?.outcome ?? 'mailbox_confirmed';
}

export function sandboxResult(email: string, now: Date, ref: string | null = null): VerificationResult {
  const syntax = checkSyntax(email);
  if (!syntax.ok) return verdict({ email, syntax, now, ref });
  const outcome = sandboxOutcome(syntax.local);
  // The table, not the real disposable list, decides disposability here; the other signals
  // (role, free, gibberish, typo) are the real ones.
  const lists = { ...checkLists(syntax), disposable: outcome === 'disposable' };
  const probe = outcome === 'disposable' ? undefined : PROBES[outcome];
  const dns = { kind: 'ok', mx: ['mx.sandbox.invalid'], provider: SANDBOX_PROVIDER } as const;
  return verdict({ email, syntax, lists, dns, probe, now, ref });
}
