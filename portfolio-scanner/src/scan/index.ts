// The scan engine's surface for the workers: one scan of one domain, and the shared vendor cache.
export { scanDomain, SCAN_FIELDS } from './scan-domain.ts';
export { SharedDnsCache, type ScanResolver, type SharedDnsCacheOptions, type SharedDnsCacheStats } from './shared-cache.ts';
export type { ScanDeps, ScanOptions } from './types.ts';
export { VENDOR_DKIM_SELECTORS, spfEmailSenders, dkimVendors, techInDns } from './vendors.ts';
