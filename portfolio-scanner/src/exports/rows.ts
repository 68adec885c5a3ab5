import type { Db } from 'mongodb';
import { accountDomainSummary, type AccountDomainDoc, type ChangeDoc, type CorpusDomainDoc, type ExportParameters } from '@dv/contracts';
import { changes, corpus, domains } from '../api/views.ts';
import { historySince, scanResultSince } from '../api/history.ts';
import { TRACKED_FIELDS } from '../store/index.ts';
import { accountProjection, needsScan, type DiffRow, type DomainRow } from './columns.ts';
import { exportCorpusFilter, exportDomainFilter } from './params.ts';

// Rows of an export, read batch by batch from a cursor (never the whole result in memory): the
// account's domains in id order (the list's order), joined with the corpus's scan result one batch
// at a time when a scan column is asked for; for `diff`, the net changes of those domains. An
// account's own domains carry only the history it saw (api/history.ts); scope global is the corpus.

export interface RowSource {
  accountId: string;
  parameters: ExportParameters;
  batchRows: number;
}

export function countDomains(db: Db, s: RowSource): Promise<number> {
  if (s.parameters.scope === 'global') return corpus(db).countDocuments(exportCorpusFilter(s.parameters));
  return domains(db).countDocuments(exportDomainFilter(s.accountId, s.parameters));
}

export async function* domainBatches(db: Db, s: RowSource, columns: readonly string[], limit = Infinity): AsyncGenerator<DomainRow[]> {
  if (s.parameters.scope === 'global') {
    yield* corpusBatches(db, s, limit);
    return;
  }
  // first_seen and added_at: where each domain's history starts for the account (api/history.ts).
  const projection = { ...accountProjection(columns), first_seen: 1, added_at: 1 } as const;
  const cursor = domains(db).find(exportDomainFilter(s.accountId, s.parameters), { projection }).sort({ id: 1 }).batchSize(s.batchRows);
  if (Number.isFinite(limit)) cursor.limit(limit);
  const join = needsScan(columns);
  let batch: DomainRow[] = [];
  const withScans = async (rows: DomainRow[]) => {
    if (!join) return rows;
    const found = await corpus(db)
      .find({ _id: { $in: rows.map((r) => r.a.domain) } }, { projection: { result: 1 } })
      .toArray();
    const byName = new Map(found.map((c) => [c._id, c.result]));
    for (const r of rows) r.scan = scanResultSince(byName.get(r.a.domain) ?? null, historySince(r.a, false));
    return rows;
  };
  try {
    for await (const a of cursor) {
      batch.push({ a, scan: null });
      if (batch.length >= s.batchRows) {
        yield await withScans(batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield await withScans(batch);
  } finally {
    await cursor.close();
  }
}

/**
 * scope global: the active corpus by name (the list's global view), each row the account's own
 * document where it monitors the domain (its id, folder, tags), else a row with no id; scan
 * fields from the corpus either way.
 */
async function* corpusBatches(db: Db, s: RowSource, limit: number): AsyncGenerator<DomainRow[]> {
  const cursor = corpus(db).find(exportCorpusFilter(s.parameters), { projection: { _id: 1, tld: 1, result: 1, last_change_at: 1 } }).sort({ _id: 1 }).batchSize(s.batchRows);
  if (Number.isFinite(limit)) cursor.limit(limit);
  let batch: Pick<CorpusDomainDoc, '_id' | 'tld' | 'result' | 'last_change_at'>[] = [];
  const rows = async () => {
    const own = new Map((await domains(db).find({ account_id: s.accountId, domain: { $in: batch.map((c) => c._id) }, status: { $ne: 'removed' } }).toArray()).map((d) => [d.domain, d]));
    return batch.map((c): DomainRow => {
      const summary = accountDomainSummary(c.result, c.last_change_at);
      const mine = own.get(c._id);
      const a = mine
        ? { ...mine, ...summary }
        : ({ domain: c._id, tld: c.tld, id: null, added_at: null, status: null, folder_id: null, is_favorite: false, tags: [], notes: null, custom_label: null, ...summary } as unknown as AccountDomainDoc);
      return { a, scan: c.result };
    });
  };
  try {
    for await (const c of cursor) {
      batch.push(c);
      if (batch.length >= s.batchRows) {
        yield await rows();
        batch = [];
      }
    }
    if (batch.length > 0) yield await rows();
  } finally {
    await cursor.close();
  }
}

const FIELD_ORDER = new Map<string, number>(TRACKED_FIELDS.map((f, i) => [f, i]));

/**
 * The net change of each tracked field of each domain over [from, to): its value before the first
 * change in the window and after the last one. A field that changed and changed back is no row.
 * Yields one array per batch of domains (domains in id order, fields in TRACKED_FIELDS order), and
 * how many domains the batch covered (progress).
 */
export async function* diffBatches(db: Db, s: RowSource): AsyncGenerator<{ rows: DiffRow[]; domains: number }> {
  const from = new Date(s.parameters.from!);
  const to = new Date(s.parameters.to!);
  const global = s.parameters.scope === 'global';
  for await (const batch of domainBatches(db, s, ['domain'])) {
    const names = batch.map((r) => r.a.domain);
    const all = await changes(db)
      .find({ domain_name: { $in: names }, detected_at: { $gte: from, $lt: to } }, { projection: { domain_name: 1, field_name: 1, old_value: 1, new_value: 1, detected_at: 1, id: 1 } })
      .sort({ domain_name: 1, id: 1 })
      .toArray();
    // scope global is the corpus as such; the account's own domains, each from the start of its history of it.
    const since = new Map(global ? [] : batch.map((r) => [r.a.domain, historySince(r.a, false)]));
    const found = global ? all : all.filter((c) => c.detected_at >= (since.get(c.domain_name) ?? from));
    yield { rows: netChanges(names, found), domains: batch.length };
  }
}

/** Pure: change records (sorted by domain, then id) → net diff rows in the order of `names`. */
export function netChanges(names: readonly string[], found: readonly Pick<ChangeDoc, 'domain_name' | 'field_name' | 'old_value' | 'new_value' | 'detected_at'>[]): DiffRow[] {
  const byDomain = new Map<string, Map<string, DiffRow>>();
  for (const c of found) {
    let fields = byDomain.get(c.domain_name);
    if (!fields) byDomain.set(c.domain_name, (fields = new Map()));
    const row = fields.get(c.field_name);
    if (!row) {
      fields.set(c.field_name, { domain: c.domain_name, field_name: c.field_name, value_at_from: c.old_value, value_at_to: c.new_value, changes: 1, first_detected_at: c.detected_at, last_detected_at: c.detected_at });
    } else {
      row.value_at_to = c.new_value;
      row.changes++;
      row.last_detected_at = c.detected_at;
    }
  }
  const out: DiffRow[] = [];
  for (const name of names) {
    const fields = byDomain.get(name);
    if (!fields) continue;
    const rows = [...fields.values()].filter((r) => r.value_at_from !== r.value_at_to);
    rows.sort((x, y) => (FIELD_ORDER.get(x.field_name) ?? 99) - (FIELD_ORDER.get(y.field_name) ?? 99) || x.field_name.localeCompare(y.field_name));
    out.push(...rows);
  }
  return out;
}
