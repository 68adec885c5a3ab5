import type { Db } from 'mongodb';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import type { LedgerEntry } from '@dv/accounts';

// What the account page reads about use: credits used this calendar month (UTC) from the ledger,
// and results by day and status over the last days from the jobs. Dates are UTC throughout; the
// pure parts (month bounds, day labels, filling days without jobs) are apart from the queries.

export const USAGE_DAYS = 30;
export const USAGE_STATUSES = ['deliverable', 'undeliverable', 'risky', 'unknown'] as const;
export type UsageStatus = (typeof USAGE_STATUSES)[number];

export const monthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
export const nextMonthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

/** The first day shown: `days` days ending today, at 00:00 UTC. */
export function firstDay(now: Date, days = USAGE_DAYS): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
}

/** `YYYY-MM-DD` of each day from `from`, `days` of them. */
export function dayKeys(from: Date, days = USAGE_DAYS): string[] {
  return Array.from({ length: days }, (_, i) => new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10));
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The smallest job id made at or after `at`: ids are ULIDs whose first ten characters are the
 * creation time, so `_id >= this` selects jobs by time on the `account_jobs` index ({account_id,
 * _id}) without an index of its own on created_at.
 */
export function firstJobIdAt(at: Date): string {
  let ms = at.getTime();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32]! + time;
    ms = Math.floor(ms / 32);
  }
  return `job_${time}`;
}

/** Credits charged minus credits refunded since the start of the month (UTC); grants and adjustments are not use. */
export async function creditsUsedThisMonth(db: Db, accountId: string, now = new Date()): Promise<number> {
  const [row] = await db
    .collection<LedgerEntry>(COLLECTIONS.creditLedger.name)
    .aggregate<{ delta: number }>([{ $match: { account_id: accountId, at: { $gte: monthStart(now) }, reason: { $in: ['charge', 'refund'] } } }, { $group: { _id: null, delta: { $sum: '$delta' } } }])
    .toArray();
  return Math.max(0, -(row?.delta ?? 0));
}

export type DailyUsage = { days: string[] } & Record<UsageStatus, number[]>;

/** Live results by day of their job's creation and by status, one aggregation over the account's recent jobs. */
export async function dailyUsage(db: Db, accountId: string, now = new Date()): Promise<DailyUsage> {
  const from = firstDay(now);
  const sums = Object.fromEntries(USAGE_STATUSES.map((s) => [s, { $sum: `$counts.${s}` }]));
  const rows = await db
    .collection<JobDoc>(COLLECTIONS.jobs.name)
    .aggregate<{ _id: string } & Record<UsageStatus, number>>([
      { $match: { account_id: accountId, _id: { $gte: firstJobIdAt(from) }, created_at: { $gte: from }, mode: 'live' } },
      { $group: { _id: { $dateToString: { format: '%Y-%m-%d', date: '$created_at', timezone: 'UTC' } }, ...sums } },
    ])
    .toArray();
  return fillDays(dayKeys(from), rows);
}

/**
 * dailyUsage kept a short while per account: the chart is by day, so a minute's delay is not
 * seen, while an account with many lists would otherwise pay the aggregation on every visit.
 */
export class DailyUsageCache {
  private readonly kept = new Map<string, { at: number; usage: Promise<DailyUsage> }>();
  private readonly db: Db;
  private readonly ttlMs: number;
  private readonly maxAccounts: number;
  constructor(db: Db, ttlMs: number, maxAccounts = 10_000) {
    this.db = db;
    this.ttlMs = ttlMs;
    this.maxAccounts = maxAccounts;
  }

  get(accountId: string, now = new Date()): Promise<DailyUsage> {
    // The day is part of the key: a new day starts a new chart at once.
    const key = `${accountId}:${now.toISOString().slice(0, 10)}`;
    const hit = this.kept.get(key);
    if (hit && now.getTime() - hit.at < this.ttlMs) return hit.usage;
    const usage = dailyUsage(this.db, accountId, now);
    if (this.kept.size >= this.maxAccounts) this.kept.clear();
    this.kept.set(key, { at: now.getTime(), usage });
    // A failed read is not kept: the next visit tries again.
    usage.catch(() => this.kept.delete(key));
    return usage;
  }
}

/** Every day in `days`, zero where no job was made. */
export function fillDays(days: string[], rows: readonly ({ _id: string } & Partial<Record<UsageStatus, number>>)[]): DailyUsage {
  const byDay = new Map(rows.map((r) => [r._id, r]));
  const out = { days } as DailyUsage;
  for (const s of USAGE_STATUSES) out[s] = days.map((d) => byDay.get(d)?.[s] ?? 0);
  return out;
}
