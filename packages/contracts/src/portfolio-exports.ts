// Portfolio exports (docs/portfolio-scanner.md "Exports"): the stored job the API queues and the
// export workers claim, write into GridFS and complete. Collection and indexes in collections.ts.

export const EXPORT_TYPES = ['csv', 'pdf', 'zip', 'diff'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

export const EXPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** The GridFS bucket holding export files (`<bucket>.files`, `<bucket>.chunks`). */
export const EXPORT_FILES_BUCKET = 'portfolio_export_files';

/** Filters of an export, in the spec's request names (`gateway`, `dmarc_policy`, `status`, `search`). */
export interface ExportFilters {
  gateway?: string;
  dmarc_policy?: 'reject' | 'quarantine' | 'none' | 'missing';
  status?: 'active' | 'inactive' | 'removed';
  search?: string;
}

/** What the export was asked for, normalised (defaults filled in), as stored and shown. */
export interface ExportParameters {
  /** `account` (default): the account's domains; `global`: the whole active corpus (plans with the global domain view; csv and diff). */
  scope?: 'account' | 'global';
  folder_id: number | 'none' | null;
  columns: string[];
  filters: ExportFilters;
  /** `diff` only: the window [from, to) of change records (ISO datetimes). */
  from?: string;
  to?: string;
}

/** `portfolio_exports`: one export job. */
export interface ExportDoc {
  /** The task id (`exp_<ULID>`): unguessable, part of the file link. */
  _id: string;
  /** The export's id in the account (counter `portfolio_exports:<account_id>`). */
  id: number;
  account_id: string;
  export_type: ExportType;
  status: ExportStatus;
  parameters: ExportParameters;
  row_count: number;
  file_size: number;
  /** Rows written so far while processing (progress), then the final count. */
  rows_done: number;
  /** Rows the filter matched when the worker started (progress denominator; an estimate for `diff`). */
  rows_expected: number | null;
  /** GridFS file of the current or finished attempt. */
  file_id: unknown | null;
  file_name: string | null;
  content_type: string | null;
  /** Why the export failed (status `failed`). */
  error: string | null;
  /** Claims by a worker so far (a crashed worker's claim lapses and another takes it, up to a limit). */
  attempts: number;
  /** Until when the claiming worker holds it; renewed while it writes. */
  lease_until: Date | null;
  worker: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** The record and its file are deleted after this (the export sweeper; finished exports only). */
  expires_at: Date | null;
  /** Its place among the account's pending exports (0 to the plan's maxPendingExports - 1; unique per
   * account), unset when it completes or fails. */
  pending_slot?: number;
  /** Its place among the account's stored exports (unique per account), held until it is deleted. */
  stored_slot?: number;
  /** The plan's limits when it was queued: rows read at most, and bytes of the account's export
   * files together at most (the worker fails the export rather than pass either). */
  max_rows?: number;
  max_storage_bytes?: number;
}
