// DNSBL table: the lists blacklist_check asks and what each answer means (RFC 5782).
//
// kind ip: the query is the reversed address under the zone (2.0.0.127.zen.spamhaus.org);
// kind domain: the domain under the zone (example.com.dbl.spamhaus.org).
// codes: A-record answers and their meaning. With `bitmask`, the last octet is a set of bits and
// every set bit's meaning applies. An answer that is neither a known code, nor in 127.0.0.0/8, is
// not a listing (dead lists have been known to answer everything with a wildcard).
// refusals: answers meaning "this list will not answer you" (public resolver, over quota, wrong
// query): reported as "list not usable from here", never as listed.
//
// Not listed on purpose: SORBS (dnsbl.sorbs.net) closed in June 2024 and its zones must not be
// queried; spam.dnsbl.sorbs.net answers are meaningless now.

export interface DnsblCode {
  meaning: string;
  /** A policy listing (e.g. Spamhaus PBL: dynamic/end-user space), not evidence of abuse. */
  policy?: boolean;
}

export interface DnsblZone {
  zone: string;
  name: string;
  kind: 'ip' | 'domain';
  /** The list answers IPv6 (nibble-reversed) queries. */
  ipv6?: boolean;
  codes: Readonly<Record<string, DnsblCode>>;
  bitmask?: boolean;
  refusals: Readonly<Record<string, string>>;
  /** Where a listed party looks the listing up / asks for removal. */
  lookupUrl?: string;
}

const SPAMHAUS_REFUSALS = {
  '127.255.255.252': 'query refused: typing error in the DNSBL name',
  '127.255.255.254': 'query refused: queries through public/open resolvers are not answered (use a private resolver or the Data Query Service)',
  '127.255.255.255': 'query refused: excessive number of queries from this resolver',
} as const;

export const SPAMHAUS_ZEN_CODES: Readonly<Record<string, DnsblCode>> = {
  '127.0.0.2': { meaning: 'SBL: Spamhaus SBL data (direct spam sources and spam operations)' },
  '127.0.0.3': { meaning: 'SBL CSS: snowshoe spam sources' },
  '127.0.0.4': { meaning: 'XBL: exploited host (CBL: botnet, malware, open proxy)' },
  '127.0.0.5': { meaning: 'XBL: exploited host' },
  '127.0.0.6': { meaning: 'XBL: exploited host' },
  '127.0.0.7': { meaning: 'XBL: exploited host' },
  '127.0.0.9': { meaning: 'DROP: hijacked or leased to spammers (Do not Route Or Peer)' },
  '127.0.0.10': { meaning: 'PBL: end-user address range (ISP-maintained); should not send mail directly to MX hosts', policy: true },
  '127.0.0.11': { meaning: 'PBL: end-user address range (Spamhaus-maintained); should not send mail directly to MX hosts', policy: true },
};

export const DNSBL_ZONES: readonly DnsblZone[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    kind: 'ip',
    ipv6: true,
    codes: SPAMHAUS_ZEN_CODES,
    refusals: SPAMHAUS_REFUSALS,
    lookupUrl: 'https://check.spamhaus.org/',
  },
  { zone: 'bl.spamcop.net', name: 'SpamCop', kind: 'ip', codes: { '127.0.0.2': { meaning: 'listed: reported spam source' } }, refusals: {}, lookupUrl: 'https://www.spamcop.net/bl.shtml' },
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda Reputation Block List',
    kind: 'ip',
    codes: { '127.0.0.2': { meaning: 'listed: poor sending reputation' } },
    refusals: {},
    lookupUrl: 'https://www.barracudacentral.org/lookups',
  },
  {
    zone: 'dnsbl-1.uceprotect.net',
    name: 'UCEPROTECT Level 1',
    kind: 'ip',
    codes: { '127.0.0.2': { meaning: 'listed: this address sent to UCEPROTECT spam traps' } },
    refusals: {},
    lookupUrl: 'https://www.uceprotect.net/en/rblcheck.php',
  },
  { zone: 'psbl.surriel.com', name: 'Passive Spam Block List', kind: 'ip', codes: { '127.0.0.2': { meaning: 'listed: sent mail to PSBL spam traps' } }, refusals: {}, lookupUrl: 'https://psbl.org/' },
  { zone: 'bl.mailspike.net', name: 'Mailspike Blacklist', kind: 'ip', codes: { '127.0.0.2': { meaning: 'listed: spam source' } }, refusals: {}, lookupUrl: 'https://mailspike.io/' },
  { zone: 'ix.dnsbl.manitu.net', name: 'NiX Spam', kind: 'ip', codes: { '127.0.0.2': { meaning: 'listed: sent spam to NiX Spam traps' } }, refusals: {}, lookupUrl: 'https://www.nixspam.net/' },
  {
    zone: 'dnsbl.dronebl.org',
    name: 'DroneBL',
    kind: 'ip',
    codes: {
      '127.0.0.3': { meaning: 'IRC drone' },
      '127.0.0.5': { meaning: 'bottler' },
      '127.0.0.6': { meaning: 'unknown spambot or drone' },
      '127.0.0.7': { meaning: 'DDoS drone' },
      '127.0.0.8': { meaning: 'SOCKS proxy' },
      '127.0.0.9': { meaning: 'HTTP proxy' },
      '127.0.0.10': { meaning: 'proxy chain' },
      '127.0.0.11': { meaning: 'web page proxy' },
      '127.0.0.12': { meaning: 'open DNS resolver' },
      '127.0.0.13': { meaning: 'brute-force attacker' },
      '127.0.0.14': { meaning: 'open Wingate proxy' },
      '127.0.0.15': { meaning: 'compromised router or gateway' },
      '127.0.0.16': { meaning: 'autorooting worm' },
      '127.0.0.17': { meaning: 'botnet' },
      '127.0.0.19': { meaning: 'abused VPN service' },
      '127.0.0.255': { meaning: 'uncategorized threat' },
    },
    refusals: {},
    lookupUrl: 'https://dronebl.org/lookup',
  },
  {
    zone: 'dbl.spamhaus.org',
    name: 'Spamhaus DBL',
    kind: 'domain',
    codes: {
      '127.0.1.2': { meaning: 'spam domain' },
      '127.0.1.4': { meaning: 'phishing domain' },
      '127.0.1.5': { meaning: 'malware domain' },
      '127.0.1.6': { meaning: 'botnet command-and-control domain' },
      '127.0.1.102': { meaning: 'abused legitimate domain: spam' },
      '127.0.1.103': { meaning: 'abused legitimate domain: spammed redirector' },
      '127.0.1.104': { meaning: 'abused legitimate domain: phishing' },
      '127.0.1.105': { meaning: 'abused legitimate domain: malware' },
      '127.0.1.106': { meaning: 'abused legitimate domain: botnet command-and-control' },
    },
    refusals: { ...SPAMHAUS_REFUSALS, '127.0.1.255': 'query refused: IP addresses cannot be queried on the DBL' },
    lookupUrl: 'https://check.spamhaus.org/',
  },
  {
    zone: 'multi.surbl.org',
    name: 'SURBL multi',
    kind: 'domain',
    bitmask: true,
    codes: {
      '8': { meaning: 'PH: phishing' },
      '16': { meaning: 'MW: malware' },
      '64': { meaning: 'ABUSE: spam and other abuse' },
      '128': { meaning: 'CR: cracked site' },
    },
    refusals: { '127.0.0.1': 'query refused: SURBL blocks this resolver (public resolvers and heavy users must use a data feed)' },
    lookupUrl: 'https://surbl.org/surbl-analysis',
  },
  {
    zone: 'multi.uribl.com',
    name: 'URIBL multi',
    kind: 'domain',
    bitmask: true,
    codes: {
      '2': { meaning: 'black: spam domain' },
      '4': { meaning: 'grey: bulk-mail domain' },
      '8': { meaning: 'red: domain in recent spam' },
    },
    refusals: { '127.0.0.1': 'query refused: URIBL blocks this resolver (public resolver or over the free query limit)' },
    lookupUrl: 'https://admin.uribl.com/',
  },
];
