// Sandbox results (spec: Authentication, item 6), by content of the local part, case-insensitive.
// When several words appear, the FIRST row in this order wins ("invalid.catchall" is invalid).
export const SANDBOX_RULES = [
  { contains: 'invalid', outcome: 'mailbox_absent' },
  { contains: 'catchall', outcome: 'catch_all' },
  // The spec names only the status; no_signal is the sub_status that fits "unknown" without
  // implying a transient failure or a block.
  { contains: 'unknown', outcome: 'no_signal' },
  { contains: 'full', outcome: 'mailbox_full' },
  { contains: 'disposable', outcome: 'disposable' },
] as const;

export type SandboxOutcome = (typeof SANDBOX_RULES)[number]['outcome'] | 'mailbox_confirmed';
