// DNSBL zones of the simulated world, carrying the real lists' code tables.
import { DNSBL_ZONES, type DnsblZone } from '../dnsbl/zones.ts';

function like(zone: string, as: string, name: string): DnsblZone {
  const row = DNSBL_ZONES.find((z) => z.zone === as);
  if (!row) throw new Error(`no DNSBL row ${as}`);
  return { ...row, zone, name };
}

export const DNSBL_TEST_ZONES: readonly DnsblZone[] = [
  like('zen.dnsbl.test', 'zen.spamhaus.org', 'Spamhaus ZEN (simulated)'),
  like('dbl.dnsbl.test', 'dbl.spamhaus.org', 'Spamhaus DBL (simulated)'),
];
