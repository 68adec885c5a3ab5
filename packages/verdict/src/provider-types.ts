export const PROVIDER_KIND = {
  mailboxProvider: 'mailbox_provider',
  securityGateway: 'security_gateway',
  hosting: 'hosting',
  /** Not in the table: the domain's own server or a provider we do not know. */
  selfHosted: 'self_hosted',
} as const;
export type ProviderKind = (typeof PROVIDER_KIND)[keyof typeof PROVIDER_KIND];

export interface Politeness {
  /** Concurrent SMTP sessions per (provider, source IP). */
  maxConcurrentSessions: number;
  /** New sessions per minute per (provider, source IP). */
  newSessionsPerMinute: number;
  /** RCPT commands per session. */
  maxRcptsPerSession: number;
}

export interface ProviderQuirks {
  /** Never send the random-address catch-all probe to this provider's servers. */
  skipCatchAllProbe: boolean;
  /** Answers 250 to every RCPT, so an accepted RCPT proves nothing (risky/accept_all_provider). */
  acceptsAllAtRcpt: boolean;
}

export interface ProviderRow {
  /** Stable id, also the `domain.mx_provider` of results and the politeness key. */
  id: string;
  /** Display name, e.g. "Google (Gmail / Workspace)". */
  name: string;
  /** Short vendor name, e.g. "Google": the portfolio API's `email_gateway` value. */
  vendor: string;
  kind: ProviderKind;
  patterns: readonly string[];
  politeness: Politeness;
  quirks: ProviderQuirks;
}
