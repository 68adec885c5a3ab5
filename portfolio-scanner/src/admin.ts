// What the launcher's demo account and the tools around the stack do to a portfolio without the API
// (@dv/portfolio-scanner/admin): add domains to an account's portfolio, ask the workers for a scan.
export { addDomains, type AddDomainsResult } from './store/domains.ts';
export { requestScan, type RequestScanOptions } from './worker/request.ts';
