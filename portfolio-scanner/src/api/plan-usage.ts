import type { Db } from 'mongodb';
import type { AccountDomainStatus, PortfolioPlan } from '@dv/contracts';
import { exportsColl, exportUsage } from '../exports/index.ts';
import { DomainLimitReached } from '../store/index.ts';
import { PortfolioError } from './errors.ts';
import { domains } from './views.ts';

// The plan's stored-data limits as the API shows and refuses them (docs/portfolio-scanner.md
// "Plan limits"): the usage in GET /api/v1/, and the store's DomainLimitReached in the envelope.

/** The store's refusal as the API's error (other errors pass through). */
export function domainLimitError(err: unknown, plan: PortfolioPlan): unknown {
  if (!(err instanceof DomainLimitReached)) return err;
  return new PortfolioError(
    'domain_limit_reached',
    `This account lists ${err.listed.toLocaleString('en-US')} domains and this request would add ${err.adding.toLocaleString('en-US')}: at most ${plan.maxDomains.toLocaleString('en-US')} domains on the ${plan.label} plan (active and inactive). Remove domains you no longer need (DELETE /api/v1/domains/{id}/), then add again.`,
  );
}

// Two ranges of the account_status index, counted without reading a document.
const LISTED: AccountDomainStatus[] = ['active', 'inactive'];

export interface Used {
  used: number;
  limit: number;
}

export interface PlanUsage {
  domains: Used;
  exports_pending: Used;
  exports_stored: Used;
  export_storage_bytes: Used;
}

export async function planUsage(db: Db, accountId: string, plan: PortfolioPlan): Promise<PlanUsage> {
  const [listed, ex] = await Promise.all([domains(db).countDocuments({ account_id: accountId, status: { $in: LISTED } }), exportUsage(exportsColl(db), accountId)]);
  return {
    domains: { used: listed, limit: plan.maxDomains },
    exports_pending: { used: ex.pending, limit: plan.maxPendingExports },
    exports_stored: { used: ex.stored, limit: plan.maxStoredExports },
    export_storage_bytes: { used: ex.storageBytes, limit: plan.maxExportStorageBytes },
  };
}
