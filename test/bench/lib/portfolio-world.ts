// The portfolio bench's generated DNS world: N domains with a realistic mail and name-server mix,
// written as one zone file per domain (plus vendor and reverse zones) for nsd. Deterministic per
// seed. Mix (a real portfolio's): ~30% Google Workspace, 25% Microsoft 365, 10% security gateways, the rest
// self-hosted; most with SPF (vendors' include trees shared), about half with DMARC, vendor DKIM
// selectors; 4 large anycast operators hold ~40% of the zones, 300 small hosts the rest.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorBudgets, nsDomain } from '@dv/portfolio-scanner/bench';
import { PORTFOLIO_DEFAULTS } from '@dv/portfolio-scanner/defaults';
import { nsdServerConf, rng } from './common.ts';

export type Mail = 'google' | 'm365' | 'mimecast' | 'proofpoint' | 'self';

export interface BenchDomain {
  name: string;
  mail: Mail;
  ns: string[];
  dmarcP: 'none' | 'quarantine' | 'reject' | null;
  /** Self-hosted MX host label (`mail` or, after an MX change, `mx2`). */
  mxLabel: string;
  ip: string;
  serial: number;
}

/** Zone → politeness operator (key, budget), for the proxy's per-operator rate. */
export type OperatorMap = Record<string, { key: string; qps: number }>;

const SMALL_HOSTS = 300;
const LARGE_NS: readonly string[][] = [
  ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
  ['ns-101.awsdns-12.com', 'ns-900.awsdns-40.net'],
  ['ns01.domaincontrol.com', 'ns02.domaincontrol.com'],
  ['ns1-01.azure-dns.com', 'ns2-01.azure-dns.net'],
];
/**
 * Where the addresses live. Each small host k has its own /24 in 198.18.0.0/15 (RFC 2544's
 * benchmarking range) with ADDRESSES_PER_HOST addresses, and serves its reverse zone itself, as
 * hosting providers do: a domain's address is its small host's (or, on a large DNS operator, the
 * host i mod 300's). Until 2026-11-26 every address's PTR sat in two /24s at one small host
 * (host0, 50 queries/s), which no real portfolio concentrates that way: each pass began with ~20 s
 * of scans waiting on that one host for the 500 reverse names. The vendors' addresses (192.0.2.x)
 * have their reverse zone at Google's name servers.
 */
const ADDRESSES_PER_HOST = 2;
const VENDOR_NET = '192.0.2';
const hostNet = (k: number) => `198.${18 + (k >> 8)}.${k & 255}`;
const reverseZone = (net: string) => `${net.split('.').reverse().join('.')}.in-addr.arpa`;
const TTL_S = 300;

export function generateDomains(n: number, seed: number): BenchDomain[] {
  const rand = rng(seed);
  const out: BenchDomain[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    const mail: Mail = r < 0.3 ? 'google' : r < 0.55 ? 'm365' : r < 0.6 ? 'mimecast' : r < 0.65 ? 'proofpoint' : 'self';
    const nsr = rand();
    const small = nsr < 0.4 ? null : Math.floor(rand() * SMALL_HOSTS);
    const ns = small === null ? (LARGE_NS[Math.floor(rand() * LARGE_NS.length)] as string[]) : smallNs(small);
    const d = rand();
    const dmarcP = d < 0.25 ? 'none' : d < 0.4 ? 'quarantine' : d < 0.5 ? 'reject' : null;
    out.push({ name: `pf${String(i).padStart(6, '0')}.test`, mail, ns, dmarcP, mxLabel: 'mail', ip: `${hostNet(small ?? i % SMALL_HOSTS)}.${(i % ADDRESSES_PER_HOST) + 1}`, serial: 1 });
  }
  return out;
}

function smallNs(k: number): string[] {
  return [`ns1.host${k}.test`, `ns2.host${k}.test`];
}

function soa(zone: string, serial: number): string {
  return `${zone}. ${TTL_S} IN SOA ns1.${zone}. hostmaster.${zone}. ${serial} 3600 600 604800 ${TTL_S}`;
}

const txt = (s: string) => `"${s}"`;

export function domainZone(d: BenchDomain): string {
  const z = d.name;
  const lines = [`$TTL ${TTL_S}`, soa(z, d.serial), ...d.ns.map((h) => `${z}. IN NS ${h}.`), `${z}. IN A ${d.ip}`, `www.${z}. IN CNAME ${z}.`];
  const spfSelf = `v=spf1 mx a include:spf.host${d.name.length % SMALL_HOSTS}.test ~all`;
  switch (d.mail) {
    case 'google':
      lines.push(`${z}. IN MX 1 aspmx.l.google.com.`, `${z}. IN MX 5 alt1.aspmx.l.google.com.`, `${z}. IN TXT ${txt('v=spf1 include:_spf.google.com ~all')}`);
      lines.push(`${z}. IN TXT ${txt(`google-site-verification=${z.replace(/\W/g, '')}`)}`, `google._domainkey.${z}. IN TXT ${txt('v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC1')}`);
      break;
    case 'm365':
      lines.push(`${z}. IN MX 0 ${z.replace('.', '-')}.mail.protection.outlook.com.`, `${z}. IN TXT ${txt('v=spf1 include:spf.protection.outlook.com -all')}`);
      lines.push(`${z}. IN TXT ${txt(`MS=ms${z.length}1234`)}`, `selector1._domainkey.${z}. IN TXT ${txt('v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC2')}`);
      lines.push(`selector2._domainkey.${z}. IN TXT ${txt('v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC3')}`);
      break;
    case 'mimecast':
      lines.push(`${z}. IN MX 10 eu-smtp-inbound-1.mimecast.com.`, `${z}. IN MX 20 eu-smtp-inbound-2.mimecast.com.`, `${z}. IN TXT ${txt('v=spf1 include:_netblocks.mimecast.com include:spf.protection.outlook.com -all')}`);
      lines.push(`selector1._domainkey.${z}. IN TXT ${txt('v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC4')}`);
      break;
    case 'proofpoint':
      lines.push(`${z}. IN MX 10 mx0a-00100101.pphosted.com.`, `${z}. IN MX 10 mx0b-00100101.pphosted.com.`, `${z}. IN TXT ${txt('v=spf1 include:spf-00100101.pphosted.com -all')}`);
      break;
    case 'self':
      lines.push(`${z}. IN MX 10 ${d.mxLabel}.${z}.`, `mail.${z}. IN A ${d.ip}`, `mx2.${z}. IN A ${d.ip}`, `${z}. IN TXT ${txt(spfSelf)}`);
      if (d.name.charCodeAt(d.name.length - 6) % 3 === 0) lines.push(`default._domainkey.${z}. IN TXT ${txt('v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC5')}`);
      break;
  }
  if (d.dmarcP) lines.push(`_dmarc.${z}. IN TXT ${txt(`v=DMARC1; p=${d.dmarcP}; rua=mailto:dmarc@${z}`)}`);
  return `${lines.join('\n')}\n`;
}

/** Vendor zones (MX hosts, SPF include trees) and the small hosts' own zones and reverse zones. */
function fixedZones(): Record<string, string[]> {
  const zones: Record<string, string[]> = {
    'google.com': [
      'google.com. IN NS ns1.google.com.',
      'google.com. IN NS ns2.google.com.',
      'aspmx.l.google.com. IN A 192.0.2.10',
      'alt1.aspmx.l.google.com. IN A 192.0.2.11',
      `_spf.google.com. IN TXT ${txt('v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all')}`,
      `_netblocks.google.com. IN TXT ${txt('v=spf1 ip4:35.190.247.0/24 ip4:64.233.160.0/19 ip4:66.102.0.0/20 ~all')}`,
      `_netblocks2.google.com. IN TXT ${txt('v=spf1 ip6:2001:4860:4000::/36 ~all')}`,
      `_netblocks3.google.com. IN TXT ${txt('v=spf1 ip4:172.217.0.0/19 ~all')}`,
    ],
    'outlook.com': [
      'outlook.com. IN NS ns1-01.azure-dns.com.',
      'outlook.com. IN NS ns2-01.azure-dns.net.',
      '*.mail.protection.outlook.com. IN A 192.0.2.20',
      `spf.protection.outlook.com. IN TXT ${txt('v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 include:spfd.protection.outlook.com -all')}`,
      `spfd.protection.outlook.com. IN TXT ${txt('v=spf1 ip4:51.4.72.0/24 -all')}`,
    ],
    'mimecast.com': [
      'mimecast.com. IN NS dns01.mimecast.net.',
      'eu-smtp-inbound-1.mimecast.com. IN A 192.0.2.30',
      'eu-smtp-inbound-2.mimecast.com. IN A 192.0.2.31',
      `_netblocks.mimecast.com. IN TXT ${txt('v=spf1 ip4:195.130.217.0/24 ip4:91.220.42.0/24 ~all')}`,
    ],
    'pphosted.com': [
      'pphosted.com. IN NS ns1.proofpoint.net.',
      'mx0a-00100101.pphosted.com. IN A 192.0.2.40',
      'mx0b-00100101.pphosted.com. IN A 192.0.2.41',
      `spf-00100101.pphosted.com. IN TXT ${txt('v=spf1 ip4:148.163.128.0/19 -all')}`,
    ],
  };
  for (let k = 0; k < SMALL_HOSTS; k++) {
    const z = `host${k}.test`;
    zones[z] = [`${z}. IN NS ns1.${z}.`, `${z}. IN NS ns2.${z}.`, `ns1.${z}. IN A 127.0.0.1`, `ns2.${z}. IN A 127.0.0.1`, `spf.${z}. IN TXT ${txt(`v=spf1 ip4:203.0.113.${k % 250}/32 ~all`)}`];
  }
  for (let k = 0; k < SMALL_HOSTS; k++) {
    const z = reverseZone(hostNet(k));
    const rows = [`${z}. IN NS ns1.host${k}.test.`, `${z}. IN NS ns2.host${k}.test.`];
    for (let h = 1; h <= ADDRESSES_PER_HOST; h++) rows.push(`${h}.${z}. IN PTR server-${h}.host${k}.test.`);
    zones[z] = rows;
  }
  const vendors = reverseZone(VENDOR_NET);
  zones[vendors] = [`${vendors}. IN NS ns1.google.com.`, `${vendors}. IN NS ns2.google.com.`];
  for (let h = 1; h <= 250; h++) zones[vendors].push(`${h}.${vendors}. IN PTR mx-${h}.vendors.google.com.`);
  return zones;
}

/** Writes every zone file and nsd.conf into `dir`; returns the conf path and the zone → operator map. */
export function writeNsdFiles(dir: string, domains: readonly BenchDomain[], port: number): { conf: string; operators: OperatorMap } {
  const budgets = new OperatorBudgets({ defaultQps: PORTFOLIO_DEFAULTS.dnsOperatorDefaultQps });
  const operators: OperatorMap = {};
  const zoneNames: string[] = [];
  const addOperator = (zone: string, ns: readonly string[]) => {
    const op = budgets.forNsDomain(nsDomain(ns) ?? zone);
    operators[zone] = { key: op.key, qps: op.qps };
  };
  for (const [zone, rows] of Object.entries(fixedZones())) {
    writeFileSync(join(dir, `${zone}.zone`), `$TTL ${TTL_S}\n${soa(zone, 1)}\n${rows.join('\n')}\n`);
    addOperator(zone, rows.filter((r) => r.startsWith(`${zone}. IN NS `)).map((r) => r.split(' ').pop()!.replace(/\.$/, '')));
    zoneNames.push(zone);
  }
  for (const d of domains) {
    writeFileSync(join(dir, `${d.name}.zone`), domainZone(d));
    addOperator(d.name, d.ns);
    zoneNames.push(d.name);
  }
  const conf = join(dir, 'nsd.conf');
  const head = [
    ...nsdServerConf(dir, port),
    'pattern:',
    '  name: z',
    '  zonefile: "%s.zone"',
  ];
  writeFileSync(conf, `${head.join('\n')}\n${zoneNames.map((z) => `zone:\n  name: ${z}\n  include-pattern: z\n`).join('')}`);
  return { conf, operators };
}

/**
 * Changes `fraction` of the domains (every k-th): self-hosted ones move their MX (mail → mx2:
 * one `mx` change), the others change their DMARC policy (or publish one: `dmarc` and
 * `dmarc_policy_p` change). Rewrites their zone files; returns the expected (domain, field) pairs.
 */
export function applyChanges(dir: string, domains: BenchDomain[], fraction: number): Set<string> {
  const expected = new Set<string>();
  const step = Math.max(1, Math.round(1 / fraction));
  for (let i = Math.floor(step / 2); i < domains.length; i += step) {
    const d = domains[i]!;
    if (d.mail === 'self') {
      d.mxLabel = 'mx2';
      expected.add(`${d.name} mx`);
    } else {
      d.dmarcP = d.dmarcP === 'reject' ? 'quarantine' : 'reject';
      expected.add(`${d.name} dmarc`).add(`${d.name} dmarc_policy_p`);
    }
    d.serial++;
    writeFileSync(join(dir, `${d.name}.zone`), domainZone(d));
  }
  return expected;
}
