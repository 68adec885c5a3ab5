// What the cluster's scenarios do as a customer would: an account with credits, a list posted to a
// gateway's /v1/jobs, polled until it completes; then what the store says about it (lost and
// duplicated results, credits charged and refunded).
import { MongoClient } from 'mongodb';
import { createAccount, createApiKey } from '@dv/accounts';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { applySchema } from '@dv/stack';
import type { Cluster } from './cluster.ts';

export const CLUSTER_DB = 'deliverability';

export interface ClusterCustomer {
  accountId: string;
  key: string;
}

export async function clusterCustomer(cluster: Cluster, credits = 10_000_000): Promise<ClusterCustomer> {
  const client = new MongoClient(cluster.env.MONGODB_URL!);
  try {
    const db = client.db(CLUSTER_DB);
    await applySchema(db);
    const account = await createAccount(db, { name: 'Cluster customer', email: `cluster-${Date.now()}@example.com`, plan: 'enterprise', credits });
    const key = await createApiKey(db, account._id, 'cluster', 'live');
    return { accountId: account._id, key: key.key };
  } finally {
    await client.close();
  }
}

export interface JobView {
  job_id: string;
  status: string;
  done: number;
  total: number;
  counts: Record<string, number>;
}

export async function submitList(gateway: string, customer: ClusterCustomer, emails: string[]): Promise<JobView> {
  const res = await fetch(`${gateway}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ emails, force_fresh: true }),
  });
  const body = (await res.json()) as JobView;
  if (res.status !== 202) throw new Error(`POST /v1/jobs answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Polls the gateways in turn (any may be gone) until the job completes or `timeoutMs` passes. */
export async function waitJob(gateways: string[], customer: ClusterCustomer, jobId: string, timeoutMs: number, onProgress?: (j: JobView) => void): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  let last: JobView | undefined;
  for (let i = 0; Date.now() < deadline; i++) {
    const gateway = gateways[i % gateways.length]!;
    try {
      const res = await fetch(`${gateway}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${customer.key}` }, signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) {
        last = (await res.json()) as JobView;
        onProgress?.(last);
        if (last.status === 'completed') return last;
      }
    } catch {
      // that gateway is unreachable: the next poll asks another
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${jobId} not completed after ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
}

export interface StoredJobFigures {
  total: number;
  done: number;
  doneItems: number;
  lost: number;
  duplicates: number;
  creditsCharged: number;
  creditsRefunded: number;
  ledgerEntries: number;
}

/** What MongoDB holds for a job: items done, `done` against them, the credit ledger's entries. */
export async function storedJobFigures(cluster: Cluster, jobId: string): Promise<StoredJobFigures> {
  const client = new MongoClient(cluster.env.MONGODB_URL!);
  try {
    const db = client.db(CLUSTER_DB);
    const job = await db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
    if (!job) throw new Error(`job ${jobId} not in the store`);
    const doneItems = await db.collection(COLLECTIONS.jobItems.name).countDocuments({ job_id: jobId, state: 'done' });
    // Ledger ids name the movement and its job (`charge:<job>`, `refund:<job>:…`): one per movement.
    const ledgerEntries = await db.collection(COLLECTIONS.creditLedger.name).countDocuments({ _id: { $regex: `:${jobId}(:|$)` } } as never);
    return {
      total: job.total,
      done: job.done,
      doneItems,
      lost: job.total - doneItems,
      duplicates: job.done - doneItems,
      creditsCharged: job.credits_charged,
      creditsRefunded: job.credits_refunded,
      ledgerEntries,
    };
  } finally {
    await client.close();
  }
}

export interface WorldStats {
  sessions: number;
  violations: number;
  sessions_by_source: Record<string, number>;
  rcpts_by_source: Record<string, number>;
  providers: { provider: string; limit: number; sessions: number; per_ip: Record<string, { sessions: number; maxConcurrent: number; violations: number }> }[];
}

/** Violations by provider, the providers with none left out. */
export function violationsByProvider(stats: WorldStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of stats.providers) {
    const v = Object.values(p.per_ip).reduce((a, f) => a + f.violations, 0);
    if (v > 0) out[`${p.provider} (limit ${p.limit})`] = v;
  }
  return out;
}

export async function worldStats(cluster: Cluster): Promise<WorldStats> {
  return (await (await fetch(`${cluster.worldControl}/stats`)).json()) as WorldStats;
}
