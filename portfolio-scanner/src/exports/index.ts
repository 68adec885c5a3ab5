// Portfolio exports (docs/portfolio-scanner.md "Exports"): csv, pdf, zip and diff files written by
// the worker role into GridFS from a queue in MongoDB, served through signed, expiring links.
export { queueExport, exportsColl, claimExport, sweepExports, type QueueContext, type QueuedExport } from './jobs.ts';
export { exportRequestSchema, normalizeParameters, type ExportRequest } from './params.ts';
export { exportLimits, exportUsage, type ExportLimits, type ExportUsage } from './quota.ts';
export { ExportWorker, exportSettings, type ExportSettings } from './worker.ts';
export { exportView, exportJobSchema, type LinkOptions } from './view.ts';
export { checkExportLink, signExportLink, resolveExportSecret, EXPORT_FILE_PATH } from './signing.ts';
export { exportBucket } from './sink.ts';
export { DOMAIN_COLUMN_NAMES, DIFF_COLUMN_NAMES } from './columns.ts';
