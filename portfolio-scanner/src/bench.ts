// Internals the benchmarks under test/bench measure on their own (@dv/portfolio-scanner/bench).
export { accountFilter } from './api/domain-query.ts';
export { dashboardSummary } from './api/summary.ts';
export { accountProjection } from './exports/columns.ts';
export { exportDomainFilter, exportRequestSchema, normalizeParameters } from './exports/params.ts';
export { OperatorBudgets, nsDomain, zoneOf } from './politeness/operators.ts';
export { VENDOR_DKIM_SELECTORS } from './scan/vendors.ts';
export { storeScans, type ScanToStore, type StoreScanResult } from './store/index.ts';
export { Batcher } from './worker/batcher.ts';
