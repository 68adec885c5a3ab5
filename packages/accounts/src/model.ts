import type { PlanLimits, PlanName, PortfolioPlanName } from '@dv/contracts';
import type { KeyMode } from './keys.ts';

export interface Account {
  _id: string;
  name: string;
  /** The account's own address: completion emails go here and only here. */
  email: string;
  plan: PlanName;
  status: 'active' | 'inactive';
  credits: number;
  /** Copied from the plan at creation, then adjustable per account. */
  limits: PlanLimits;
  webhook_secret: string;
  /** Portfolio API plan (PORTFOLIO_PLANS); absent or null: no portfolio API access. */
  portfolio_plan?: PortfolioPlanName | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRecord {
  _id: string;
  account_id: string;
  name: string;
  mode: KeyMode;
  prefix: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface LedgerEntry {
  /** The movement's idempotency id: a second movement with the same id is refused, not applied. */
  _id: string;
  account_id: string;
  delta: number;
  reason: 'grant' | 'charge' | 'refund' | 'adjustment';
  note: string | null;
  at: Date;
}

/** The public view of a key: never the hash. */
export function publicKey(k: ApiKeyRecord) {
  return { id: k._id, name: k.name, mode: k.mode, prefix: k.prefix, created_at: k.created_at, last_used_at: k.last_used_at, revoked_at: k.revoked_at, active: k.revoked_at === null };
}
