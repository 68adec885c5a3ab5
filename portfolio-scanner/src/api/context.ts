import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Account, AuthMarks } from '@dv/accounts';
import type { Logger } from '@dv/runtime';
import type { PortfolioKeyDoc, PortfolioPlan } from '@dv/contracts';
import type { PortfolioKeyAuthenticator } from './key-auth.ts';
import type { ApiLimits } from './limits.ts';

/** What every route handler gets. */
export interface ApiContext {
  db: Db;
  redis: Redis;
  log: Logger;
  limits: ApiLimits;
  /** PORTFOLIO_RESCAN_INTERVAL_S (add requests compute scan slots from it). */
  intervalS: number;
  /** Queues priority scans for names just added (requestScan over NATS in the service). */
  requestScan: (domains: readonly string[]) => Promise<void>;
  /** Seconds between last_used_at writes of one key in one process. */
  lastUsedThrottleMs: number;
  /** Finds a presented key (key-auth.ts: remembered in process, revocation marks, attempt limit). */
  auth: PortfolioKeyAuthenticator;
  /** Revocation marks: written by every path here that takes a key's power away, before it answers. */
  marks: AuthMarks;
  /** Exports (src/exports): the file-link key and how long a link lasts (the limits are the plan's). */
  exports: { secret: string; linkTtlS: number };
  /** PUBLIC_BASE_URL: every link the API answers (root links, next/previous, file_url, poll) and the OpenAPI `servers` entry. */
  publicBaseUrl: string;
}

/** The authenticated caller. */
export interface ApiCaller {
  account: Account;
  key: PortfolioKeyDoc;
  plan: PortfolioPlan;
}
