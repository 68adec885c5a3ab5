import { checkSyntax } from '@dv/verdict';

// Intake of a list (JSON emails/items or an uploaded file): syntax check, normalization and
// case-insensitive deduplication (an address is charged once). Memory stays bounded by the job limit:
// past `maxItems` unique addresses only counts move, so a 50 MB file of a million rows never
// sits in memory.

export interface IntakeItem {
  email: string;
  ref: string | null;
  meta: Record<string, string> | null;
}

export interface InvalidItem {
  /** Position in `emails`/`items` (JSON, 0-based) or the file's line-based row (upload, 1 = first data row). */
  index?: number;
  row?: number;
  input: string;
  reason: string;
  code: string;
}

export interface IntakeSummary {
  items: IntakeItem[];
  /** Unique valid addresses seen, including any beyond `maxItems`. */
  uniqueTotal: number;
  duplicates: number;
  invalid: InvalidItem[];
  invalidTotal: number;
}

export class Intake {
  private readonly seen = new Set<string>();
  /** Raw inputs already kept (trimmed, lower-cased): a repeated row skips the syntax check. */
  private readonly seenRaw = new Set<string>();
  private readonly maxItems: number;
  private readonly invalidListedMax: number;
  readonly summary: IntakeSummary = { items: [], uniqueTotal: 0, duplicates: 0, invalid: [], invalidTotal: 0 };

  constructor(maxItems: number, invalidListedMax: number) {
    this.maxItems = maxItems;
    this.invalidListedMax = invalidListedMax;
  }

  /** `meta` may be a function, so rows that turn out duplicates never build their meta object. */
  add(raw: string, ref: string | null, meta: Record<string, string> | null | (() => Record<string, string> | null), where: { index?: number; row?: number }): void {
    const rawKey = raw.trim().toLowerCase();
    if (this.seenRaw.has(rawKey)) {
      this.summary.duplicates++;
      return;
    }
    const syntax = checkSyntax(raw);
    if (!syntax.ok) {
      this.reject(raw, syntax.reason, syntax.code, where);
      return;
    }
    const dedupe = syntax.address.toLowerCase();
    if (this.seen.has(dedupe)) {
      this.summary.duplicates++;
      return;
    }
    this.summary.uniqueTotal++;
    if (this.summary.items.length >= this.maxItems) return; // over the limit: counted, not kept
    this.seen.add(dedupe);
    this.seenRaw.add(rawKey);
    this.summary.items.push({ email: syntax.address, ref, meta: typeof meta === 'function' ? meta() : meta });
  }

  reject(raw: string, reason: string, code: string, where: { index?: number; row?: number }): void {
    this.summary.invalidTotal++;
    if (this.summary.invalid.length < this.invalidListedMax) this.summary.invalid.push({ ...where, input: raw.length > 320 ? `${raw.slice(0, 320)}…` : raw, reason, code });
  }

  /** True once more unique addresses arrived than one job may hold. */
  get overLimit(): boolean {
    return this.summary.uniqueTotal > this.maxItems;
  }
}
