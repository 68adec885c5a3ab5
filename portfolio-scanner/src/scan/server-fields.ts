// Where the domain's mail and web servers are: the address of the most preferred MX host that
// has one (mx_server_*) and the lowest A address (a_server_*), each with geolocation and ASN.
import { isIP } from 'node:net';
import type { MxHostAddresses } from '@dv/mailsec';
import type { GeoInfo, GeoLookup } from '../geo/types.ts';
import { sortIps } from './formats.ts';
import type { OutcomeBuilder } from './outcome.ts';

const NO_GEO: GeoInfo = { country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null };

/**
 * MX hosts are taken in preference order; the first with an address is the mail server. A host
 * before it whose lookup failed might have been the answer, so then the fields are unconfirmed.
 * Geolocation is of its lowest IPv4 address, else its lowest IPv6 address.
 */
export function setMxServerFields(out: OutcomeBuilder, geo: GeoLookup, mxFailed: boolean, hosts: readonly MxHostAddresses[]): void {
  let confirmed = !mxFailed;
  let chosen: MxHostAddresses | undefined;
  for (const h of hosts) {
    if (h.status === 'has_address') {
      chosen = h;
      break;
    }
    if (h.status === 'lookup_failed') confirmed = false;
  }
  const ips = sortIps(chosen?.addresses ?? []);
  const v4 = ips.find((ip) => isIP(ip) === 4) ?? null;
  const v6 = ips.find((ip) => isIP(ip) === 6) ?? null;
  const g = locate(geo, v4 ?? v6);
  out.setAll(
    {
      mx_server_ipv4: v4,
      mx_server_ipv6: v6,
      mx_server_country: g.country,
      mx_server_region: g.region,
      mx_server_city: g.city,
      mx_server_asn: g.asn,
      mx_server_asn_name: g.asn_name,
      mx_server_lat: g.lat,
      mx_server_lon: g.lon,
    },
    confirmed,
  );
}

/** The web server: the lowest A address, else the lowest AAAA address (when A is confirmed empty). */
export function setAServerFields(out: OutcomeBuilder, geo: GeoLookup, a: { ips: string[]; failed: boolean }, aaaa: { ips: string[]; failed: boolean }): void {
  const v4 = sortIps(a.ips)[0] ?? null;
  const ip = v4 ?? (a.failed ? null : (sortIps(aaaa.ips)[0] ?? null));
  const confirmed = !a.failed && (v4 !== null || !aaaa.failed);
  const g = locate(geo, ip);
  out.setAll(
    {
      a_server_country: g.country,
      a_server_region: g.region,
      a_server_city: g.city,
      a_server_asn: g.asn,
      a_server_asn_name: g.asn_name,
      a_server_lat: g.lat,
      a_server_lon: g.lon,
    },
    confirmed,
  );
}

function locate(geo: GeoLookup, ip: string | null): GeoInfo {
  return (ip === null ? null : geo.lookup(ip)) ?? NO_GEO;
}
