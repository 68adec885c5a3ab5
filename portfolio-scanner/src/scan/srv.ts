// The SRV names of a scan (mailsec's SRV_SERVICES, 21 names under `_tcp`, `_udp` and `_tls`),
// asked only where something can exist. RFC 8020: an NXDOMAIN for `_tcp.<domain>` means no name
// exists below it, so none of its services is asked (what discoverDkim does for `_domainkey`).
// Most domains publish no SRV record at all: 3 questions instead of 21, all charged to the
// domain's own operator. A parent that exists (an empty non-terminal answers NOERROR/NODATA),
// fails or times out gets all its services asked, so a failure never hides a record.
import { SRV_SERVICES, type Resolver, type ResolveResult } from '@dv/mailsec';

export interface SrvLookup {
  service: string;
  result: ResolveResult<'SRV'>;
}

/** `_sip._tls` → `_tls`: the protocol label every service of that protocol sits under. */
export function srvParent(service: string): string {
  return service.slice(service.lastIndexOf('.') + 1);
}

/** The parents of `services`, in first-seen order. */
export function srvParents(services: readonly string[] = SRV_SERVICES): string[] {
  return [...new Set(services.map(srvParent))];
}

/**
 * The lookups of every service that may exist: the parent probes themselves are not returned (an
 * NXDOMAIN parent is a confirmed "none" for its services; a failed one makes its services asked).
 */
export async function lookupSrv(domain: string, resolver: Resolver, services: readonly string[] = SRV_SERVICES): Promise<SrvLookup[]> {
  const parents = srvParents(services);
  const probes = await Promise.all(parents.map((p) => resolver.resolve(`${p}.${domain}`, 'SRV')));
  const absent = new Set(parents.filter((_, i) => probes[i]?.rcode === 'NXDOMAIN'));
  const asked = services.filter((s) => !absent.has(srvParent(s)));
  return Promise.all(asked.map(async (service) => ({ service, result: await resolver.resolve(`${service}.${domain}`, 'SRV') })));
}
