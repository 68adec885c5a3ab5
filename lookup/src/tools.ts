import type { ToolName } from './engine.ts';

// The eight core tools as data: REST slug, what the target may be, whether `detail=full` applies,
// and the description agents read (MCP) and humans read (OpenAPI). REST and MCP both serve from
// this table, so the two surfaces cannot drift apart.

/** `domain`: a domain name; `domain_or_ip`: a domain or an IPv4/IPv6 address; `record`: pasted record text. */
export type TargetKind = 'domain' | 'domain_or_ip' | 'record';

export interface ToolSpec {
  name: ToolName;
  /** REST path segment (`/v1/<slug>/{target}`) and web-tool path segment of the `source` link. */
  slug: string;
  target: TargetKind;
  /** Accepts `detail=full` (complete, untruncated record set). */
  detail: boolean;
  title: string;
  description: string;
}

const QUOTA_NOTE =
  'Counts as one lookup against the daily allowance unless the answer comes from the cache (cache: "cached"). ' +
  'The result has a plain-English `summary` to quote, structured `data`, a `report` text block and a `source` link to the web tool.';

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'dns_lookup',
    slug: 'dns',
    target: 'domain_or_ip',
    detail: true,
    title: 'DNS lookup',
    description:
      'Live DNS records of one domain (A, AAAA, MX, NS, TXT, SOA, CNAME, CAA, DNSKEY, DS, SRV and more), plus the detected email gateway, DMARC policy and technology. ' +
      'Use it to answer "what are the DNS records of X" or "where is X hosted / who handles its mail"; given an IP address it answers the reverse (PTR) name. Pass detail:"full" for the complete untruncated record set. ' +
      QUOTA_NOTE,
  },
  {
    name: 'email_security_check',
    slug: 'email-security',
    target: 'domain',
    detail: true,
    title: 'Email security check',
    description:
      'One-call email-security overview of a domain: MX hosts, SPF record with the 10-DNS-lookup verdict, DMARC policy, and the email gateway/provider; flags MX hosts without an address (mail cannot be delivered) and null MX. ' +
      'Start here for "is X set up correctly for email" or deliverability questions. Pass detail:"full" for every record untruncated. ' +
      QUOTA_NOTE,
  },
  {
    name: 'dkim_discover',
    slug: 'dkim',
    target: 'domain',
    detail: false,
    title: 'DKIM discovery',
    description:
      'Finds the DKIM signing keys a domain publishes by probing common selectors, and maps them to the sending providers (Google, Microsoft, Mailchimp…). ' +
      'Use it for "does X sign its mail" or "which services send mail for X". ' +
      QUOTA_NOTE,
  },
  {
    name: 'whois_lookup',
    slug: 'whois',
    target: 'domain_or_ip',
    detail: false,
    title: 'WHOIS / RDAP lookup',
    description:
      'Registration data of a domain or IP address from RDAP/WHOIS: registrar, status, creation and expiry dates, name servers (for an IP: network name, owner, country, ASN). ' +
      'Use it for "when does X expire", "who is the registrar of X" or "who owns this IP". ' +
      QUOTA_NOTE,
  },
  {
    name: 'spf_analyze',
    slug: 'spf',
    target: 'domain',
    detail: false,
    title: 'SPF analysis',
    description:
      "Fetches a domain's SPF record and expands its full include tree, counting DNS lookups against the RFC 7208 limit of 10 and reporting errors (too many lookups, void lookups, syntax). " +
      'Use it for "why does SPF fail for X" or "is X over the SPF lookup limit". ' +
      QUOTA_NOTE,
  },
  {
    name: 'dmarc_check',
    slug: 'dmarc',
    target: 'domain',
    detail: false,
    title: 'DMARC check',
    description:
      'Whether a domain publishes DMARC, its p= policy (none, quarantine or reject) and the raw record with its tags (rua, pct, sp…). ' +
      'Use it for "is X protected against spoofing". ' +
      QUOTA_NOTE,
  },
  {
    name: 'blacklist_check',
    slug: 'blacklist',
    target: 'domain_or_ip',
    detail: false,
    title: 'Blacklist check',
    description:
      'Checks a domain (its mail server addresses) or an IP address against major email blacklists (DNSBLs) and says which list it is on, if any. ' +
      'Lists that did not answer are named as not checked: when none answered the answer is "unknown" (data.blacklist.status, listed null), never "not listed". ' +
      'Use it for "is X blacklisted" or "why is mail from this IP rejected". ' +
      QUOTA_NOTE,
  },
  {
    name: 'validate',
    slug: 'validate',
    target: 'record',
    detail: false,
    title: 'Validate an SPF or DMARC record',
    description:
      'Syntax-checks a pasted SPF ("v=spf1 …") or DMARC ("v=DMARC1; …") record without any DNS lookup: valid or invalid, the problems found, a score and a letter grade. ' +
      'Use it before publishing a record. ' +
      QUOTA_NOTE,
  },
];

export const TOOL_BY_NAME: ReadonlyMap<ToolName, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));
export const TOOL_BY_SLUG: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.slug, t]));

export function toolSpec(name: ToolName): ToolSpec {
  const spec = TOOL_BY_NAME.get(name);
  if (!spec) throw new Error(`unknown tool ${name}`);
  return spec;
}
