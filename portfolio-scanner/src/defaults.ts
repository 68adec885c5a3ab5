// Every tunable of the portfolio scanner with its default; config.ts reads them from the environment.
export const PORTFOLIO_DEFAULTS = {
  /** HTTP port (design.md: portfolio-scanner 8082). */
  port: 8082,
  // Geolocation and ASN (src/geo). Empty path lists mean the files shipped in npm data packages.
  /** Country-level default: @ip-location-db/geo-whois-asn-country-mmdb (IPv4+IPv6, ~8 MB; a city
   * database is 45-135 MB on disk and as much in memory, too much beside the 300 MB budget). */
  geoCityMmdbDefault: '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
  /** Where the default ASN mmdb (built once from the @ip-location-db/asn CSV, ~15 MB) is kept;
   * empty means <os tmpdir>/dv-portfolio-geo. */
  geoCacheDir: '',
  /** How often the database files are stat'ed; a changed file is reopened and swapped in. */
  geoReloadCheckIntervalMs: 60_000,
  // One scan of one domain (src/scan).
  /** MX hosts (in preference order) whose addresses are looked up for mx_server_*. */
  scanMxHostsChecked: 3,
  /** A/AAAA addresses (in address order) whose PTR names make the ptr field. */
  scanPtrAddresses: 4,
  /** DKIM selector queries of one scan in flight at once. */
  scanDkimConcurrency: 16,
  /** Names kept by the shared cache of vendor answers (SPF include trees, MX hosts). */
  sharedDnsCacheMaxEntries: 50_000,
  /** Longest a shared answer is kept, whatever its TTL. */
  sharedDnsCacheMaxTtlS: 3600,
} as const;
