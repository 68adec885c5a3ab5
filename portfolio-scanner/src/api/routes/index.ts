import type { HttpRoute } from '../route.ts';
import type { ApiCaller, ApiContext } from '../context.ts';
import { getSummary } from './dashboard-summary.ts';
import { listChanges } from './domain-changes.ts';
import { deleteDomain } from './domain-delete.ts';
import { getDomain } from './domain-detail.ts';
import { getScanResults } from './domain-scan-results.ts';
import { updateDomain } from './domain-update.ts';
import { getWhois } from './domain-whois.ts';
import { addDomainsRoute } from './domains-add.ts';
import { getExport } from './export-detail.ts';
import { downloadExport } from './export-file.ts';
import { createExport } from './exports-create.ts';
import { listExports } from './exports-list.ts';
import { listDomains } from './domains-list.ts';
import { createKey, listKeys, revokeKey } from './keys.ts';
import { openApiRoute } from './openapi.ts';
import { root } from './root.ts';

export function portfolioRoutes(): HttpRoute<ApiContext, ApiCaller>[] {
  const routes: HttpRoute<ApiContext, ApiCaller>[] = [root, listDomains, addDomainsRoute, getDomain, updateDomain, deleteDomain, getScanResults, listChanges, getWhois, getSummary, listExports, createExport, getExport, downloadExport, listKeys, createKey, revokeKey];
  routes.splice(1, 0, openApiRoute(() => routes));
  return routes;
}
