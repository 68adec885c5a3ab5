import type { Db, Filter } from 'mongodb';
import { COLLECTIONS, latestResultId, type JobItemDoc, type KeyModeName, type LatestResultDoc } from '@dv/contracts';
import type { VerificationResult } from '@dv/verdict';
import type { ResultField } from '../http/schemas.ts';
import { Coalescer } from './coalescer.ts';

// Reading results: job items (with the caller's ref and meta put back), the account's latest
// result per address, and `fields` trimming.

export type ResultObject = Partial<VerificationResult> & { meta?: Record<string, string> };

export function resultOfItem(item: Pick<JobItemDoc, 'email' | 'ref' | 'meta' | 'result'>): ResultObject {
  const r = item.result!;
  const out: ResultObject = { ...r, email: r.email ?? item.email, ref: item.ref ?? r.ref ?? null };
  if (item.meta) out.meta = item.meta;
  return out;
}

export function trimFields(result: ResultObject, fields: readonly ResultField[] | null | undefined): ResultObject {
  if (!fields) return result;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f in result) out[f] = (result as Record<string, unknown>)[f];
  return out as ResultObject;
}

export interface ResultsFilter {
  status?: string;
  decisions?: string[];
}

export function itemsFilter(jobId: string, f: ResultsFilter, afterSeq?: number): Filter<JobItemDoc> {
  const q: Record<string, unknown> = { job_id: jobId, state: 'done' };
  if (afterSeq !== undefined) q.seq = { $gt: afterSeq };
  if (f.status) q['result.status'] = f.status;
  if (f.decisions && f.decisions.length > 0) q['result.decision.action'] = { $in: f.decisions };
  return q as Filter<JobItemDoc>;
}

interface LatestAsk {
  accountId: string;
  mode: KeyModeName;
  email: string;
}

export interface ResultStoreOptions {
  /** Group reads of GET /v1/lookup: lookups per query, queries in flight. */
  lookupBatchMax: number;
  lookupInFlight: number;
}

export class ResultStore {
  private readonly db: Db;
  /** Lookups arriving while a query is in flight are answered by the next one, together. */
  private readonly latestReads: Coalescer<LatestAsk, LatestResultDoc | null>;

  constructor(db: Db, opts: ResultStoreOptions) {
    this.db = db;
    this.latestReads = new Coalescer({ maxBatch: opts.lookupBatchMax, maxInFlight: opts.lookupInFlight, flush: (batch) => this.readLatest(batch) });
  }

  private async readLatest(batch: LatestAsk[]): Promise<Array<LatestResultDoc | null>> {
    const ids = batch.map((b) => latestResultId(b.accountId, b.mode, b.email));
    const docs = await this.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).find({ _id: { $in: [...new Set(ids)] } }).toArray();
    const found = new Map(docs.map((d) => [d._id, d]));
    return ids.map((id) => found.get(id) ?? null);
  }

  get items() {
    return this.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  }

  async page(jobId: string, f: ResultsFilter, limit: number, afterSeq?: number): Promise<{ items: JobItemDoc[]; nextSeq: number | null }> {
    const docs = await this.items.find(itemsFilter(jobId, f, afterSeq)).sort({ seq: 1 }).limit(limit + 1).toArray();
    const more = docs.length > limit;
    const page = docs.slice(0, limit);
    return { items: page, nextSeq: more ? page[page.length - 1]!.seq : null };
  }

  cursor(jobId: string, f: ResultsFilter) {
    return this.items.find(itemsFilter(jobId, f)).sort({ seq: 1 }).batchSize(1_000);
  }

  async firstItem(jobId: string): Promise<JobItemDoc | null> {
    return this.items.findOne({ job_id: jobId, seq: 0 });
  }

  /**
   * The account's latest result for an address from keys of this mode (unique per account, mode
   * and case-folded address): a live key never sees a sandbox answer, nor the reverse.
   */
  async latest(accountId: string, mode: KeyModeName, email: string): Promise<LatestResultDoc | null> {
    return this.latestReads.add({ accountId, mode, email });
  }
}

/** The CSV header: every result column, decision and decision_why, then the meta columns. */
export const CSV_BASE_COLUMNS = ['email', 'ref', 'status', 'sub_status', 'score', 'safe_to_send', 'decision', 'decision_why', 'catch_all', 'role', 'free', 'disposable', 'gibberish', 'did_you_mean', 'domain', 'mx_provider', 'reason', 'attempts', 'cached', 'checked_at'] as const;

export function csvRow(item: JobItemDoc, metaColumns: readonly string[]): string[] {
  const r = item.result;
  const v = (x: unknown) => (x === null || x === undefined ? '' : String(x));
  const base = [
    item.email,
    v(item.ref),
    v(r?.status),
    v(r?.sub_status),
    v(r?.score),
    v(r?.safe_to_send),
    v(r?.decision?.action),
    v(r?.decision?.why),
    v(r?.flags?.catch_all),
    v(r?.flags?.role),
    v(r?.flags?.free),
    v(r?.flags?.disposable),
    v(r?.flags?.gibberish),
    v(r?.did_you_mean),
    v(r?.domain?.name),
    v(r?.domain?.mx_provider),
    v(r?.reason),
    v(r?.attempts),
    v(r?.cached),
    v(r?.checked_at),
  ];
  return [...base, ...metaColumns.map((c) => v(item.meta?.[c]))].map(neutralizeFormula);
}

/** Spreadsheet formula injection (OWASP CSV injection): a cell that starts like a formula is quoted. */
export function neutralizeFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}
