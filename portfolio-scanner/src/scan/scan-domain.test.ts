// One scan of one domain against the simulated DNS world (src/scan/testing/world.json merged over
// default.json and mailsec.json): every field for scripted domains, stable output, and failed
// lookups reported as unconfirmed, never as empty values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsResolver, type Resolver } from '@dv/mailsec';
import type { ScanField, ScanObservation } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import type { GeoInfo, GeoLookup } from '../geo/types.ts';
import { scanDomain, SCAN_FIELDS } from './scan-domain.ts';
import { SharedDnsCache } from './shared-cache.ts';
import { startPortfolioWorld } from './testing/world.ts';

/** A fake geo database: a few known addresses, nulls for the rest. */
const GEO: Record<string, GeoInfo> = {
  '127.0.11.10': { country: 'US', region: 'California', city: 'Mountain View', lat: 37.4, lon: -122.1, asn: 'AS15169', asn_name: 'Google LLC' },
  '127.0.40.3': { country: 'NL', region: 'North Holland', city: 'Amsterdam', lat: 52.37, lon: 4.89, asn: 'AS64500', asn_name: 'Web Host BV' },
};
const geo: GeoLookup = { lookup: (ip) => GEO[ip] ?? { country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null } };
const AT = new Date('2026-06-01T00:00:00Z');

let world: WorldHandle;
let resolver: DnsResolver;

beforeAll(async () => {
  world = await startPortfolioWorld();
  // A short timeout keeps timeout.test and the timing-out selector cheap (two tries of 300 ms);
  // the retry keeps a first scan on a busy machine from losing an answer to a slow start.
  resolver = new DnsResolver({ servers: world.dns.server, timeoutMs: 300, retries: 1 });
});
afterAll(async () => {
  resolver?.close();
  await world?.stop();
});

const scan = (domain: string, opts: { resolver?: Resolver; fullDkimSweep?: boolean; knownSelectors?: string[] } = {}) =>
  scanDomain(domain, { resolver: opts.resolver ?? resolver, geo, shared: new SharedDnsCache({ maxEntries: 1000, maxTtlS: 60 }), now: () => AT }, opts);

const nulls = (fields: readonly ScanField[]) => Object.fromEntries(fields.map((f) => [f, null]));
const MX_SERVER = ['mx_server_ipv4', 'mx_server_ipv6', 'mx_server_country', 'mx_server_region', 'mx_server_city', 'mx_server_asn', 'mx_server_asn_name', 'mx_server_lat', 'mx_server_lon'] as const;
const A_SERVER = ['a_server_country', 'a_server_region', 'a_server_city', 'a_server_asn', 'a_server_asn_name', 'a_server_lat', 'a_server_lon'] as const;
const DKIM = ['dkim_hosts', 'dkim_selectors', 'dkim_vendors', 'dkim'] as const;
const DMARC = ['dmarc', 'dmarc_policy_p', 'dmarc_rua', 'dmarc_ruf'] as const;
const SPF_COUNTS = ['spf_main_lookups', 'spf_nested_lookups', 'spf_total_lookups', 'spf_email_senders', 'spf_limit'] as const;

describe('scanDomain: every field of a scripted domain', () => {
  it('Google Workspace with nested includes, DMARC reject with rua/ruf, DKIM, BIMI, SRV, PTR and geo', async () => {
    const { observation, unconfirmed, queries } = await scan('pf-google.test');
    const expected: ScanObservation = {
      scanned_at: AT,
      mx: '1 aspmx.l.google.com, 10 alt1.aspmx.l.google.com, 10 alt2.aspmx.l.google.com',
      spf: 'v=spf1 include:_spf.pf-google.test ~all',
      dmarc: 'v=DMARC1; p=reject; rua=mailto:dmarc@pf-google.test,mailto:agg@pf-google.test; ruf=mailto:forensic@pf-google.test; adkim=s',
      dmarc_policy_p: 'reject',
      dmarc_rua: 'mailto:agg@pf-google.test, mailto:dmarc@pf-google.test',
      dmarc_ruf: 'mailto:forensic@pf-google.test',
      txt: 'google-site-verification=PfGoogleToken\nopenai-domain-verification=dv-PfGoogle\nv=spf1 include:_spf.pf-google.test ~all',
      a_records: '127.0.40.3, 127.0.40.20',
      aaaa_records: '2001:db8::4, 2001:db8::40',
      ns: 'ns-cloud-a1.googledomains.com, ns-cloud-a2.googledomains.com',
      soa: 'ns-cloud-a1.googledomains.com dns-admin.google.com 2026010101 21600 3600 259200 300',
      bimi: 'v=BIMI1; l=https://pf-google.test/logo.svg; a=',
      srv: '_imaps._tcp 0 1 993 imap.gmail.com, _submission._tcp 0 1 587 smtp.google.com',
      ptr: '127.0.40.3 web1.pf-google.test, 127.0.40.20 web2.pf-google.test',
      email_gateway: 'Google',
      tech_in_dns: 'GitHub Pages, Google (Search Console / Workspace), Google Cloud DNS, Google Trust Services, OpenAI',
      mx_server_ipv4: '127.0.11.10',
      mx_server_ipv6: '2001:db8:11::10',
      mx_server_country: 'US',
      mx_server_region: 'California',
      mx_server_city: 'Mountain View',
      mx_server_asn: 'AS15169',
      mx_server_asn_name: 'Google LLC',
      mx_server_lat: 37.4,
      mx_server_lon: -122.1,
      a_server_country: 'NL',
      a_server_region: 'North Holland',
      a_server_city: 'Amsterdam',
      a_server_asn: 'AS64500',
      a_server_asn_name: 'Web Host BV',
      a_server_lat: 52.37,
      a_server_lon: 4.89,
      dkim_hosts: 'google._domainkey.pf-google.test',
      dkim_selectors: 'google',
      dkim_vendors: 'Google Workspace',
      dkim: 'google rsa 2048',
      // include:_spf.pf-google.test (1); below it include:_spf.google.com, include:sendgrid.net,
      // a:relay (3) and _spf.google.com's include:_netblocks.google.com (1).
      spf_main_lookups: 1,
      spf_nested_lookups: 4,
      spf_total_lookups: 5,
      spf_email_senders: 'Google Workspace, SendGrid',
      spf_limit: 'ok',
    };
    expect(observation).toEqual(expected);
    expect(Object.keys(observation).sort()).toEqual(['scanned_at', ...SCAN_FIELDS].sort());
    expect(unconfirmed).toEqual([]);
    expect(queries).toBeGreaterThan(30);
  });

  it.each<[string, Partial<ScanObservation>]>([
    [
      'pf-m365.test',
      {
        mx: '0 pf-m365-test.mail.protection.outlook.com',
        email_gateway: 'Microsoft 365',
        spf_email_senders: 'Microsoft 365',
        dmarc_policy_p: 'quarantine',
        dmarc_rua: 'mailto:rua@dmarc.pf-m365.test',
        dmarc_ruf: null,
        dkim_selectors: 'selector1',
        dkim_hosts: 'selector1._domainkey.pf-m365.test',
        dkim_vendors: 'Microsoft 365',
        dkim: 'selector1 ed25519 256',
        tech_in_dns: 'Azure DNS, Microsoft 365',
        srv: '_autodiscover._tcp 0 0 443 autodiscover.outlook.com',
        mx_server_ipv4: '127.0.41.10',
        mx_server_ipv6: null,
        mx_server_country: null,
      },
    ],
    [
      'pf-proofpoint.test',
      {
        mx: '10 mx0a-00112233.pphosted.com, 10 mx0b-00112233.pphosted.com',
        email_gateway: 'Proofpoint',
        spf_email_senders: 'Microsoft 365, Mimecast',
        spf_total_lookups: 2,
        dmarc: 'v=DMARC1; p=none',
        dmarc_policy_p: 'none',
        dmarc_rua: null,
        mx_server_ipv4: '127.0.42.10',
        a_records: null,
        dkim: null,
      },
    ],
    ['pf-mimecast.test', { email_gateway: 'Mimecast', spf_email_senders: 'Mimecast', dmarc: null, dmarc_policy_p: null, dkim_selectors: 'mimecast', dkim_vendors: 'Mimecast', mx_server_ipv4: '127.0.43.10' }],
    ['overlimit.test', { spf_main_lookups: 11, spf_nested_lookups: 0, spf_total_lookups: 11, spf_limit: 'over_limit', spf_email_senders: null }],
    ['senders.test', { spf_email_senders: 'Mailchimp, SendGrid', dkim_selectors: 'k1, s1', dkim_vendors: 'Mailchimp, SendGrid', email_gateway: 'blocked.test' }],
    ['pf-baddmarc.test', { dmarc: 'v=DMARC1; p=bogus; rua=mailto:x@pf-baddmarc.test', dmarc_policy_p: null, dmarc_rua: 'mailto:x@pf-baddmarc.test' }],
    ['twodmarc.test', { dmarc: 'v=DMARC1; p=none\nv=DMARC1; p=reject; rua=mailto:a@twodmarc.test', dmarc_policy_p: null, dmarc_rua: null }],
    ['sub.orgfallback.test', { dmarc: 'v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc@orgfallback.test', dmarc_policy_p: 'quarantine' }],
    ['acme.test', { dmarc_policy_p: 'reject', dkim_selectors: null, mx: '10 mx1.acme.test', email_gateway: 'Self-hosted' }],
    [
      'nullmx.test',
      { mx: '0 .', email_gateway: 'Null MX', ...nulls(MX_SERVER), spf: 'v=spf1 -all', spf_total_lookups: 0, spf_limit: 'ok', spf_email_senders: null, a_records: '127.0.5.80' },
    ],
    [
      'aonly.test',
      { a_records: '127.0.5.10', mx: null, email_gateway: null, spf: null, txt: null, ...nulls(SPF_COUNTS), ...nulls(DMARC), ...nulls(DKIM), ...nulls(MX_SERVER), ns: null, ptr: null },
    ],
  ])('%s', async (domain, fields) => {
    const { observation, unconfirmed } = await scan(domain);
    expect(observation).toMatchObject(fields);
    expect(unconfirmed).toEqual([]);
  });
});

describe('scanDomain: DKIM selectors', () => {
  it('tries the pointed-at vendors\' selectors every scan, the full list on a full sweep, and known selectors always', async () => {
    expect((await scan('pf-mimecast.test')).observation.dkim_selectors).toBe('mimecast');
    expect((await scan('pf-mimecast.test', { fullDkimSweep: true })).observation.dkim_selectors).toBe('dkim, mimecast');
    const later = await scan('pf-mimecast.test', { knownSelectors: ['dkim', 'mimecast'] });
    expect(later.observation.dkim_selectors).toBe('dkim, mimecast');
    expect(later.observation.dkim_hosts).toBe('dkim._domainkey.pf-mimecast.test, mimecast._domainkey.pf-mimecast.test');
  });

  it('without a full sweep asks only the selectors of the vendors the MX, SPF and TXT point at', async () => {
    const asked: string[] = [];
    const recording: Resolver = { resolve: (name, type) => (asked.push(name.toLowerCase()), resolver.resolve(name, type)) };
    const selectorsAsked = (domain: string) => asked.filter((n) => n.endsWith(`._domainkey.${domain}`)).map((n) => n.split('.')[0]).sort();
    // Google Workspace MX and SPF (plus SendGrid in its SPF): those vendors' selectors, not Microsoft's or Mailchimp's.
    expect((await scan('pf-google.test', { resolver: recording })).observation.dkim_selectors).toBe('google');
    expect(selectorsAsked('pf-google.test')).toEqual(['google', 'google2048', 's1', 's2', 'sendgrid', 'smtpapi']);
    // The full sweep still asks the other vendors' selectors.
    asked.length = 0;
    await scan('pf-google.test', { resolver: recording, fullDkimSweep: true });
    expect(selectorsAsked('pf-google.test')).toEqual(expect.arrayContaining(['google', 'selector1', 'k1', 's1', 'default']));
    // An SPF tree with a failed include cannot rule a vendor out: every vendor selector, so a
    // Microsoft 365 key is found though nothing else names Microsoft.
    asked.length = 0;
    expect((await scan('pf-partial.test', { resolver: recording })).observation.dkim_selectors).toBe('selector1');
    expect(selectorsAsked('pf-partial.test')).toEqual(expect.arrayContaining(['k1', 's1', 'selector1', 'selector2']));
  });

  it('skips the sweep when _domainkey does not exist (RFC 8020)', async () => {
    const fresh = new DnsResolver({ servers: world.dns.server, timeoutMs: 300, retries: 0 });
    const before = world.dns.queries.length;
    await scan('aonly.test', { fullDkimSweep: true, resolver: fresh });
    fresh.close();
    const asked = world.dns.queries.slice(before).filter((q) => q.name.toLowerCase().endsWith('_domainkey.aonly.test'));
    expect(asked.map((q) => q.name.toLowerCase())).toEqual(['_domainkey.aonly.test']);
  });
});

describe('scanDomain: stable output', () => {
  /** Hands every answer back in reverse order, as another server or a round-robin might. */
  const reversing = (base: Resolver): Resolver => ({
    async resolve(name, type) {
      const r = await base.resolve(name, type);
      return { ...r, answers: [...r.answers].reverse() };
    },
  });

  it.each(['pf-google.test', 'pf-proofpoint.test', 'senders.test', 'twodmarc.test', 'pf-mimecast.test'])('%s reads the same whatever the answer order', async (domain) => {
    const a = await scan(domain);
    const b = await scan(domain, { resolver: reversing(resolver) });
    expect(b.observation).toEqual(a.observation);
    expect(b.unconfirmed).toEqual(a.unconfirmed);
  });
});

describe('scanDomain: failed lookups are unconfirmed, never empty', () => {
  // servfail.test / timeout.test fail every query at the name itself; names below it (the
  // world's behaviours are per exact name) answer NXDOMAIN, a confirmed absence.
  const APEX_FIELDS: ScanField[] = ['mx', 'spf', 'txt', 'a_records', 'aaaa_records', 'ns', 'soa', 'ptr', 'email_gateway', 'tech_in_dns', ...MX_SERVER, ...A_SERVER, ...SPF_COUNTS];

  it.each(['servfail.test', 'timeout.test'])('%s', async (domain) => {
    const { observation, unconfirmed } = await scan(domain);
    expect([...unconfirmed].sort()).toEqual([...APEX_FIELDS].sort());
    for (const f of unconfirmed) expect(observation[f], f).toBeNull();
  });

  it('a failed DMARC lookup, a failed nested include and a timed-out selector leave the rest confirmed', async () => {
    const { observation, unconfirmed } = await scan('pf-partial.test');
    expect(unconfirmed).toEqual(['dmarc', 'dmarc_policy_p', 'dmarc_rua', 'dmarc_ruf', 'dkim_hosts', 'dkim_selectors', 'dkim_vendors', 'dkim', 'spf_nested_lookups', 'spf_total_lookups', 'spf_email_senders', 'spf_limit']);
    expect(observation).toMatchObject({
      mx: '10 mx.pf-partial.test',
      ...nulls(DMARC),
      // What answered is kept (the change history ignores unconfirmed fields either way).
      dkim_selectors: 'selector1',
      spf_main_lookups: 2,
      spf_email_senders: 'Google Workspace',
    });
  });

  it('a most-preferred MX host whose address lookup fails leaves mx_server_* unconfirmed, mx confirmed', async () => {
    const { observation, unconfirmed } = await scan('pf-mxfail.test');
    expect(unconfirmed).toEqual([...MX_SERVER]);
    expect(observation.mx).toBe('10 mx.broken-host.test, 20 mx2.pf-mxfail.test');
    expect(observation.email_gateway).toBe('broken-host.test');
  });
});
