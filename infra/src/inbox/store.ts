// What the launcher's mail catcher and webhook receiver keep, and how `npm run admin -- inbox`
// reads it back: one JSON file per received mail or webhook delivery under <localDir>/inbox/,
// named so that a directory listing is in arrival order. Kept across starts (reset: delete it).
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StoredMail {
  kind: 'mail';
  received_at: string;
  /** SMTP envelope. */
  mail_from: string;
  rcpt_to: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Every http(s) link in the text and HTML parts, in order, without duplicates. */
  links: string[];
  /** The raw message beside this file (`.eml`). */
  raw_file: string;
}

export type SignatureCheck = 'valid' | 'invalid' | 'missing' | 'unknown_account';

export interface StoredDelivery {
  kind: 'webhook';
  received_at: string;
  path: string;
  account_id: string | null;
  signature_header: string | null;
  signature: SignatureCheck;
  /** The status the receiver answered (204 valid; 400 otherwise, so the sender retries as with a real receiver). */
  answered: number;
  event_id: string | null;
  event_type: string | null;
  job_id: string | null;
  body: string;
}

export type InboxEntry = StoredMail | StoredDelivery;

export const INBOX_DIRS = { mail: 'mail', webhook: 'webhooks' } as const;

let seq = 0;
/** A file name that sorts by arrival, unique within this process. */
export function entryName(now: Date): string {
  seq = (seq + 1) % 1_000_000;
  return `${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}-${String(seq).padStart(6, '0')}`;
}

export function writeEntry(inboxDir: string, entry: InboxEntry, name: string): string {
  const dir = join(inboxDir, INBOX_DIRS[entry.kind]);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  // Written under another name and renamed: a reader (admin inbox, a test polling) never sees half
  // an entry, and readEntries lists only *.json.
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(entry, null, 2)}\n`);
  renameSync(partial, file);
  return file;
}

/** Every stored entry of one kind, oldest first (a folder that does not exist yet is empty). */
export function readEntries<K extends InboxEntry['kind']>(inboxDir: string, kind: K): Extract<InboxEntry, { kind: K }>[] {
  const dir = join(inboxDir, INBOX_DIRS[kind]);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.sort().map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Extract<InboxEntry, { kind: K }>);
}

/** http(s) links in a text, in order, without duplicates; a trailing sentence dot or bracket is not part of a link. */
export function extractLinks(...texts: string[]): string[] {
  const seen = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(/https?:\/\/[^\s"'<>]+/g)) seen.add(m[0].replace(/[.,;:)\]]+$/, ''));
  return [...seen];
}
