// @dv/verdict: pure verification rules (docs/verdict.md). No I/O, no clock, no randomness.

export { checkSyntax, LIMITS, SYNTAX_ERROR } from './syntax.ts';
export type { SyntaxErrorCode, SyntaxFailure, SyntaxOk, SyntaxResult } from './syntax.ts';

export { isDisposableDomain, isFreeDomain } from './domain-lists.ts';
export { roleOf } from './roles.ts';
export { detectGibberish } from './gibberish.ts';
export type { GibberishResult } from './gibberish.ts';
export { didYouMean, suggestDomain } from './typo.ts';
export { checkLists } from './lists.ts';
export type { ListSignals } from './lists.ts';

export { PROVIDERS, CATCH_ALL_SKIP_DOMAINS } from './data/providers.ts';
export { providerForMx, registrableDomain, shouldProbeCatchAll } from './provider.ts';
export { PROVIDER_KIND } from './provider-types.ts';
export type { Politeness, ProviderKind, ProviderQuirks, ProviderRow } from './provider-types.ts';

export { REPLY_RULES } from './data/reply-rules.ts';
export { classifyReply, parseReply } from './reply.ts';
export type { ParsedReply } from './reply.ts';
export { REPLY_CLASS } from './reply-types.ts';
export type { ClassifiedReply, ReplyClass, ReplyRule, SmtpReply } from './reply-types.ts';

export { GREYLIST_LADDER_MINUTES, POLICY_BLOCK_MINUTES, TEMP_FAILURE_LADDER_MINUTES, THROTTLE_PAUSE } from './data/retry-ladder.ts';
export { nextAction, RETRY_LADDERS, RETRY_POLICY, throttlePauseMs } from './next-action.ts';
export type { NextAction, NextActionContext, RetryLadders, RetryPolicy, ThrottlePause } from './next-action.ts';

export { precheck, verdict } from './verdict.ts';
export type { DnsOutcome, Precheck, ProbeOutcome, SessionOutcome, VerdictInput } from './verdict.ts';
export { sandboxResult } from './sandbox.ts';
export { STATUS, SUB_STATUS } from './result-types.ts';
export type { Decision, DecisionAction, Flags, SafeToSend, Status, SubStatus, VerificationResult } from './result-types.ts';
