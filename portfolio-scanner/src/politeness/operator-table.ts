// Authoritative DNS operators the scanner knows, as data: which registrable domains their name
// servers live under, and the query budget the scanner allows itself toward each. Operators not
// listed get PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS (50/s), each on its own.
//
// The large operators serve millions of zones from anycast networks built for resolver traffic
// from the whole internet; 2,000 queries/s from one scanner is a rounding error there
// (docs/portfolio-scanner.md), while a small host with two name servers must never see a portfolio's worth of
// queries at once. None of these operators publishes a per-client limit for authoritative queries,
// so the numbers are ours; `source` says where each name-server naming scheme is documented, so a
// row can be checked and kept current.

export interface OperatorRow {
  /** The metric label and the key of PORTFOLIO_DNS_OPERATOR_QPS overrides. */
  name: string;
  /** Registrable domains of the operator's name-server host names (the PSL's registrable domain). */
  domains?: readonly string[];
  /** For operators with many registrable domains (Route 53's awsdns-NN.*). */
  pattern?: RegExp;
  qps: number;
  source: string;
}

const LARGE = 2000;

export const OPERATOR_TABLE: readonly OperatorRow[] = [
  {
    name: 'Cloudflare',
    domains: ['cloudflare.com'],
    qps: LARGE,
    source: 'https://developers.cloudflare.com/dns/nameservers/ (<name>.ns.cloudflare.com)',
  },
  {
    name: 'Route 53',
    // ns-123.awsdns-45.com / .net / .org / .co.uk: four TLDs per delegation set.
    pattern: /^awsdns-\d+\.(com|net|org|co\.uk)$/,
    qps: LARGE,
    source: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/SOA-NSrecords.html (ns-NNNN.awsdns-NN.{com,net,org,co.uk})',
  },
  {
    name: 'Azure DNS',
    domains: ['azure-dns.com', 'azure-dns.net', 'azure-dns.org', 'azure-dns.info'],
    qps: LARGE,
    source: 'https://learn.microsoft.com/azure/dns/dns-delegate-domain-azure-dns (ns1-NN.azure-dns.{com,net,org,info})',
  },
  {
    name: 'Google Cloud DNS',
    domains: ['googledomains.com'],
    qps: LARGE,
    source: 'https://cloud.google.com/dns/docs/update-name-servers (ns-cloud-XN.googledomains.com)',
  },
  {
    name: 'Google',
    // Google's own zones (google.com, gmail.com…) and _spf.google.com's tree.
    domains: ['google.com'],
    qps: LARGE,
    source: 'NS of google.com: ns1-ns4.google.com (anycast, Google\'s own zones)',
  },
  {
    name: 'GoDaddy',
    domains: ['domaincontrol.com'],
    qps: LARGE,
    source: 'GoDaddy Help, "What are my default nameservers?" (nsNN.domaincontrol.com)',
  },
  {
    name: 'NS1',
    domains: ['nsone.net'],
    qps: LARGE,
    source: 'NS1 Connect documentation, delegating a zone to NS1 (dnsN.pNN.nsone.net)',
  },
  {
    name: 'UltraDNS',
    domains: ['ultradns.com', 'ultradns.net', 'ultradns.org', 'ultradns.info', 'ultradns.biz', 'ultradns.co.uk'],
    qps: LARGE,
    source: 'UltraDNS user guide, name servers (pdnsN.ultradns.{net,com,biz,org,info,co.uk})',
  },
  {
    name: 'Akamai',
    domains: ['akam.net', 'akamaiedge.net'],
    qps: LARGE,
    source: 'Akamai Edge DNS documentation, delegation name servers (aN-NN.akam.net)',
  },
  {
    name: 'Oracle Dyn',
    domains: ['dynect.net'],
    qps: LARGE,
    source: 'Oracle Dyn Managed DNS documentation (nsN.pNN.dynect.net)',
  },
  {
    name: 'Microsoft 365',
    // Zones hosted for Microsoft 365 customers (ns1-bd.ms-acdc.office.com…) and Microsoft's own.
    domains: ['office.com', 'msft.net'],
    qps: LARGE,
    source: 'NS of outlook.com and microsoft.com: nsN-NN.azure-dns.* and nsN.msft.net; Microsoft 365 DNS: ns1-bd.ms-acdc.office.com',
  },
];

/** The label of every query charged to an operator the table does not list. */
export const OTHER_OPERATOR = 'other';
