// Public surface of @dv/mailsec: the DNS resolver, the SPF engine, and the lookup tools.
export * from './resolver/index.ts';
export * from './spf/index.ts';

// The tool contract and the engine.
export { TOOL_NAMES, TargetError, type Engine, type EngineOptions, type ToolInput, type ToolMeta, type ToolName, type ToolOutput } from './tools/types.ts';
export { createEngine, TOOLS, type ToolFunction } from './tools/engine.ts';
export { createToolContext, type ToolContext, type OwnedToolContext, type ToolSettings } from './tools/context.ts';
export { TOOL_DEFAULTS } from './tools/defaults.ts';

// Each tool as a function of (context, input), for portfolio-scanner.
export { dnsLookup } from './tools/dns-lookup.ts';
export { emailSecurityCheck } from './tools/email-security.ts';
export { spfAnalyze } from './tools/spf-analyze.ts';
export { dmarcCheck } from './tools/dmarc-check.ts';
export { dkimDiscover } from './tools/dkim-discover.ts';
export { whoisLookup } from './tools/whois-lookup.ts';
export { blacklistCheck } from './tools/blacklist-check.ts';
export { validateTool } from './tools/validate.ts';

// The analyses behind the tools, as structured data.
export { checkTarget, checkDomain, organizationalDomain, isSpecialPurposeIp, type Target, type TargetRules } from './target.ts';
export { checkDmarc, type DmarcCheck, type DmarcExternalReport, type DmarcStatus } from './dmarc/check.ts';
export { parseDmarcRecord, isDmarcRecordText, parseReportUri, type DmarcParseResult, type DmarcPolicy, type DmarcProblem, type DmarcRecord, type DmarcReportUri } from './dmarc/parse.ts';
export { discoverDkim, type DkimDiscovery, type DkimDiscoverOptions, type DkimSelectorFound } from './dkim/discover.ts';
export { parseDkimRecord, keyBits, type DkimKey } from './dkim/record.ts';
export { dkimProvider, DKIM_CNAME_PROVIDERS, DKIM_SELECTOR_PROVIDERS, type DkimProviderMatch, type DkimProviderRow } from './dkim/providers.ts';
export { DKIM_SELECTORS } from './dkim/selectors.ts';
export { checkBlacklists, queryDnsbl, interpretDnsblAnswer, blacklistSubjects, type BlacklistCheck, type BlacklistOptions, type BlacklistSubjects, type DnsblAnswerMeaning, type DnsblResult, type DnsblOutcome } from './dnsbl/check.ts';
export { DNSBL_ZONES, SPAMHAUS_ZEN_CODES, type DnsblZone, type DnsblCode } from './dnsbl/zones.ts';
export { lookupWhois, type WhoisDeps, type WhoisLookup, type WhoisAttempt } from './whois/lookup.ts';
export { RdapBootstrap } from './whois/bootstrap.ts';
export { fetchJson, type FetchLimits, type FetchOptions, type FetchOutcome } from './whois/http.ts';
export { WHOIS_SERVERS, type WhoisServer } from './whois/servers.ts';
export { parseWhoisText } from './whois/parse.ts';
export { normalizeRdapDomain, normalizeRdapIp, type NetworkData, type RegistrationData } from './whois/rdap.ts';
export { validateRecord, gradeFor, type Validation, type Finding, type Grade } from './validate/grade.ts';
export { SPF_RUBRIC, DMARC_RUBRIC, GRADE_THRESHOLDS } from './validate/rubric.ts';
export { emailGateway, mxWithProviders, type EmailGateway, type MxWithProvider } from './dns/gateway.ts';
// Whether the MX hosts have an address, and the findings (null MX, "the MX host has no address:
// mail to this domain cannot be delivered") the portfolio scanner counts towards needs_attention.
export { mxHostAddresses, mxFindings, MX_FINDINGS, type MxHostAddresses, type MxHostStatus, type MxFinding, type MxFindingCode } from './dns/mx-hosts.ts';
export { detectTechnology, type DetectedTechnology } from './dns/detect.ts';
export { TECHNOLOGY_TABLE, type TechnologyRow, type TechnologySource } from './dns/technology-table.ts';
// SPF include -> sending service (the portfolio scanner's spf_email_senders; TECHNOLOGY_TABLE's SPF rows).
export { SPF_SENDERS, spfSenderFor, type SpfSenderRow } from './dns/spf-senders.ts';
export { SRV_SERVICES } from './dns/srv-services.ts';
export { dnssecStatus, type DnssecStatus, type DnssecFacts } from './dns/dnssec.ts';
export { reverseName } from './dns/reverse.ts';
