// The portfolio scanner's store: change history (pure), rescan timing (pure), storing scans and
// an account's domains (MongoDB). docs/portfolio-scanner.md "Data model" and "Change history".
export { diffScan, unconfirmedClosure, TRACKED_FIELDS, type TrackedField, type FieldChange, type ScanDiff } from './changes.ts';
export { nextDueAt, slotOf, phaseOf } from './schedule.ts';
export { normalizeDomainName, tldOf, type NameCheck } from './names.ts';
export { storeScan, storeScans, type ScanToStore, type StoreScanOptions, type StoreScanResult } from './store.ts';
export { addDomains, DomainLimitReached, removeDomain, type AddDomainsResult, type AddedDomain, type DomainOpsOptions } from './domains.ts';
export { migrateGatewayValues, withCurrentGateway, type GatewayMigrationResult } from './gateway-migration.ts';
export { backfillAccountHistory, backfilledHistory } from './history-backfill.ts';
export { runOnce } from './once.ts';
