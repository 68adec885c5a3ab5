import type { AnyBulkWriteOperation, Collection, Db, Document, Filter } from 'mongodb';
import { COLLECTIONS, type AccountDomainDoc, type ChangeDoc, type CorpusDomainDoc, type ScanResult } from '@dv/contracts';
import { currentGatewayValue, GATEWAY_VALUES } from '../scan/gateway-values.ts';
import { runOnce } from './once.ts';

// Gateway values stored before the vocabulary (display names such as "Google (Gmail /
// Workspace)", "none (null MX)", the domain's own name for self-hosted mail) rewritten in today's
// terms (scan/gateway-values.ts), once per database (a counters document records that it ran):
// the corpus result and its previous_email_gateway, the account summaries and the change records.
// A rewrite is not a change: no change record is written and no date moves. Each write is a
// compare-and-set on the value read, so a scan stored meanwhile is never overwritten.

const MARK = 'migration:portfolio.email_gateway.vocabulary';
/** Documents read per bulk write. */
const BATCH = 1000;

export interface GatewayMigrationResult {
  corpus: number;
  accountDomains: number;
  changes: number;
}

/** Values already in today's vocabulary, and null: nothing to read for those. */
const CURRENT = [...GATEWAY_VALUES.map((g) => g.value), null];
const notCurrent = { $nin: CURRENT };

export async function migrateGatewayValues(db: Db): Promise<GatewayMigrationResult> {
  return runOnce(db, MARK, { corpus: 0, accountDomains: 0, changes: 0 }, () => migrate(db));
}

async function migrate(db: Db): Promise<GatewayMigrationResult> {
  const corpus = await rewrite(
    db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name),
    { $or: [{ 'result.email_gateway': notCurrent }, { 'result.previous_email_gateway': notCurrent }] },
    { 'result.email_gateway': 1, 'result.previous_email_gateway': 1 },
    (d) => {
      const gw = d.result?.email_gateway ?? null;
      const prev = d.result?.previous_email_gateway ?? null;
      const next = { 'result.email_gateway': currentGatewayValue(d._id, gw), 'result.previous_email_gateway': currentGatewayValue(d._id, prev) };
      if (next['result.email_gateway'] === gw && next['result.previous_email_gateway'] === prev) return null;
      return { filter: { _id: d._id, 'result.email_gateway': gw, 'result.previous_email_gateway': prev }, set: next };
    },
  );
  const accountDomains = await rewrite(db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name), { email_gateway: notCurrent }, { domain: 1, email_gateway: 1 }, (d) => {
    const next = currentGatewayValue(d.domain, d.email_gateway);
    return next === d.email_gateway ? null : { filter: { _id: d._id, email_gateway: d.email_gateway }, set: { email_gateway: next } };
  });
  const changes = await rewrite(
    db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name),
    { field_name: 'email_gateway', $or: [{ old_value: notCurrent }, { new_value: notCurrent }] },
    { domain_name: 1, old_value: 1, new_value: 1 },
    (d) => {
      const next = { old_value: currentGatewayValue(d.domain_name, d.old_value), new_value: currentGatewayValue(d.domain_name, d.new_value) };
      if (next.old_value === d.old_value && next.new_value === d.new_value) return null;
      return { filter: { _id: d._id, old_value: d.old_value, new_value: d.new_value }, set: next };
    },
  );
  return { corpus, accountDomains, changes };
}

/**
 * A stored result in today's gateway terms, for comparing a new scan against: a result an older
 * replica stored after the migration ran (a rolling upgrade) then yields no change record either.
 */
export function withCurrentGateway(domain: string, r: ScanResult): ScanResult {
  const gw = currentGatewayValue(domain, r.email_gateway);
  const prev = currentGatewayValue(domain, r.previous_email_gateway);
  return gw === r.email_gateway && prev === r.previous_email_gateway ? r : { ...r, email_gateway: gw, previous_email_gateway: prev };
}

/** One pass over the documents `query` selects, writing what `plan` says in batches; returns how many changed. */
async function rewrite<T extends Document & { _id: string }>(
  coll: Collection<T>,
  query: Filter<T>,
  projection: Document,
  plan: (doc: T) => { filter: Document; set: Document } | null,
): Promise<number> {
  let modified = 0;
  let ops: AnyBulkWriteOperation<T>[] = [];
  const flush = async () => {
    if (ops.length === 0) return;
    modified += (await coll.bulkWrite(ops, { ordered: false })).modifiedCount;
    ops = [];
  };
  for await (const doc of coll.find(query, { projection })) {
    const p = plan(doc as T);
    if (p) ops.push({ updateOne: { filter: p.filter as Filter<T>, update: { $set: p.set as Partial<T> } } });
    if (ops.length >= BATCH) await flush();
  }
  await flush();
  return modified;
}
