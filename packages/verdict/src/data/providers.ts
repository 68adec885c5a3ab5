// Provider table: MX host patterns -> who runs the mail service, how politely to probe it, and its
// quirks. Ordered: the first row with a matching pattern wins, so specific rows come before broad
// ones. A pattern matches the MX host itself or any host under it ("google.com" matches
// "alt1.aspmx.l.google.com"). Politeness numbers follow ZoneMTA's, Haraka's and Reacher's defaults.
//
// vendor: the short, stable name the portfolio API reports as `email_gateway` and filters by
// (docs/portfolio-scanner.md "Gateway values"); unique, also case-insensitively; `name` is the
// longer display string the lookup tools show.
//
// kind: mailbox_provider = hosts people's mailboxes; security_gateway = filters mail in front of
// another server (its RCPT answer may come from a directory sync or not at all); hosting = a web
// host's shared mail service.
import type { ProviderRow } from '../provider-types.ts';

const DEFAULT_POLITENESS = { maxConcurrentSessions: 5, newSessionsPerMinute: 60, maxRcptsPerSession: 20 } as const;
const MICROSOFT_POLITENESS = { maxConcurrentSessions: 2, newSessionsPerMinute: 10, maxRcptsPerSession: 3 } as const;
const NO_QUIRKS = { skipCatchAllProbe: false, acceptsAllAtRcpt: false } as const;

export const PROVIDERS: readonly ProviderRow[] = [
  {
    id: 'google',
    name: 'Google (Gmail / Workspace)',
    vendor: 'Google',
    kind: 'mailbox_provider',
    patterns: ['google.com', 'googlemail.com', 'smtp.google.com'],
    politeness: { ...DEFAULT_POLITENESS, newSessionsPerMinute: 10 },
    // Workspace domains can route unknown users to a catch-all, so the probe stays on here;
    // gmail.com itself is skipped by domain (CATCH_ALL_SKIP_DOMAINS).
    quirks: NO_QUIRKS,
  },
  {
    id: 'microsoft_consumer',
    name: 'Microsoft Outlook.com / Hotmail',
    vendor: 'Outlook.com',
    kind: 'mailbox_provider',
    // hotmail-com.olc.protection.outlook.com, outlook-com.olc.protection.outlook.com
    patterns: ['olc.protection.outlook.com'],
    politeness: MICROSOFT_POLITENESS,
    // Serves only consumer domains, which never have a catch-all.
    quirks: { skipCatchAllProbe: true, acceptsAllAtRcpt: false },
  },
  {
    id: 'microsoft_365',
    name: 'Microsoft 365 (Exchange Online)',
    vendor: 'Microsoft 365',
    kind: 'mailbox_provider',
    // tenant-com.mail.protection.outlook.com; newer tenants use <tenant>.<x>.mx.microsoft
    patterns: ['mail.protection.outlook.com', 'protection.outlook.com', 'mx.microsoft'],
    politeness: MICROSOFT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'yahoo',
    name: 'Yahoo / AOL',
    vendor: 'Yahoo',
    kind: 'mailbox_provider',
    // mta5.am0.yahoodns.net, mx-aol.mail.gm0.yahoodns.net
    patterns: ['yahoodns.net', 'yahoo.com', 'aol.com'],
    politeness: { ...DEFAULT_POLITENESS, newSessionsPerMinute: 25 },
    // Yahoo answers 250 to any RCPT and bounces unknown users after DATA.
    quirks: { skipCatchAllProbe: true, acceptsAllAtRcpt: true },
  },
  {
    id: 'apple',
    name: 'Apple iCloud Mail',
    vendor: 'iCloud',
    kind: 'mailbox_provider',
    patterns: ['mail.icloud.com', 'icloud.com', 'me.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'zoho',
    name: 'Zoho Mail',
    vendor: 'Zoho',
    kind: 'mailbox_provider',
    patterns: ['zoho.com', 'zoho.eu', 'zoho.in', 'zoho.com.au', 'zoho.jp', 'zohomail.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'proton',
    name: 'Proton Mail',
    vendor: 'Proton',
    kind: 'mailbox_provider',
    patterns: ['protonmail.ch', 'protonmail.com', 'proton.me'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'fastmail',
    name: 'Fastmail',
    vendor: 'Fastmail',
    kind: 'mailbox_provider',
    patterns: ['messagingengine.com', 'fastmail.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'gmx_webde',
    name: 'GMX / WEB.DE (1&1 Mail & Media)',
    vendor: 'GMX / WEB.DE',
    kind: 'mailbox_provider',
    patterns: ['gmx.net', 'gmx.de', 'gmx.com', 'web.de', 'mail.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'mailru',
    name: 'Mail.ru',
    vendor: 'Mail.ru',
    kind: 'mailbox_provider',
    patterns: ['mail.ru'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'yandex',
    name: 'Yandex Mail',
    vendor: 'Yandex',
    kind: 'mailbox_provider',
    patterns: ['yandex.ru', 'yandex.net', 'yandex.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'mimecast',
    name: 'Mimecast',
    vendor: 'Mimecast',
    kind: 'security_gateway',
    patterns: ['mimecast.com', 'mimecast.co.za', 'mimecast-offshore.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'proofpoint',
    name: 'Proofpoint',
    vendor: 'Proofpoint',
    kind: 'security_gateway',
    patterns: ['pphosted.com', 'ppe-hosted.com', 'ppops.net'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'barracuda',
    name: 'Barracuda Email Security',
    vendor: 'Barracuda',
    kind: 'security_gateway',
    patterns: ['barracudanetworks.com', 'barracuda.com', 'cudamail.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'cisco',
    name: 'Cisco Secure Email (IronPort)',
    vendor: 'Cisco',
    kind: 'security_gateway',
    patterns: ['iphmx.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'broadcom',
    name: 'Broadcom / Symantec Email Security.cloud (MessageLabs)',
    vendor: 'Broadcom',
    kind: 'security_gateway',
    patterns: ['messagelabs.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'trendmicro',
    name: 'Trend Micro Email Security',
    vendor: 'Trend Micro',
    kind: 'security_gateway',
    patterns: ['tmes.trendmicro.com', 'tmes.trendmicro.eu', 'tmes-anz.trendmicro.com', 'trendmicro.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'sophos',
    name: 'Sophos Email',
    vendor: 'Sophos',
    kind: 'security_gateway',
    patterns: ['hydra.sophos.com', 'sophos.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'forcepoint',
    name: 'Forcepoint Email Security',
    vendor: 'Forcepoint',
    kind: 'security_gateway',
    patterns: ['mailcontrol.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'ovh',
    name: 'OVHcloud',
    vendor: 'OVHcloud',
    kind: 'hosting',
    patterns: ['mail.ovh.net', 'ovh.net'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
  {
    id: 'ionos',
    name: 'IONOS (1&1)',
    vendor: 'IONOS',
    kind: 'hosting',
    patterns: ['kundenserver.de', 'ionos.de', 'ionos.com', 'ionos.co.uk', 'ionos.es', 'ionos.fr', 'ionos.it', 'perfora.net', '1and1.com'],
    politeness: DEFAULT_POLITENESS,
    quirks: NO_QUIRKS,
  },
];

/** Politeness for MX hosts no row matches (self-hosted servers and small providers). */
export const SELF_HOSTED_POLITENESS = DEFAULT_POLITENESS;

/**
 * Recipient domains whose catch-all probe is skipped (as Reacher does): large consumer services never
 * have a catch-all, and probing them with random addresses only costs reputation. Domains served
 * by a row with skipCatchAllProbe (Outlook.com, Yahoo/AOL infrastructure) are skipped as well.
 */
export const CATCH_ALL_SKIP_DOMAINS: readonly string[] = [
  'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'msn.com',
  'yahoo.com', 'ymail.com', 'rocketmail.com', 'aol.com', 'icloud.com', 'me.com', 'mac.com',
];
