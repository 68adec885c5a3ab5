/**
 * Geolocation and ASN of one IP address, as the scan result's `*_server_*` fields need it.
 * Every field is null when the database has no answer for it (or the address is private,
 * loopback or otherwise special-purpose: such addresses are never looked up).
 */
export interface GeoInfo {
  /** ISO 3166-1 alpha-2 country code, e.g. "US". */
  country: string | null;
  /** First-level subdivision name as the database gives it, e.g. "California". */
  region: string | null;
  city: string | null;
  lat: number | null;
  lon: number | null;
  /** Autonomous system as "AS<number>", e.g. "AS15169". */
  asn: string | null;
  /** The AS organisation name, e.g. "Google LLC". */
  asn_name: string | null;
}

/** What the scan engine needs: a synchronous lookup over in-memory databases. */
export interface GeoLookup {
  /** null only when `ip` is not an IP address at all; otherwise a GeoInfo (fields may be null). */
  lookup(ip: string): GeoInfo | null;
}
