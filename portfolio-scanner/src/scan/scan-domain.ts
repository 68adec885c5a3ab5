// One scan of one domain: every field of the spec's Scan result except change tracking, with the
// fields no confirmed answer supports listed apart (ScanOutcome). The DNS work is mailsec's
// (resolver, SPF tree, DMARC discovery, DKIM sweep, MX host addresses, technology table); this
// module decides what is asked, in parallel where nothing depends on an earlier answer, and
// writes each field in its one format (formats.ts, docs/portfolio-scanner.md "Field formats").
import {
  analyzeSpf,
  checkDmarc,
  detectTechnology,
  discoverDkim,
  DKIM_SELECTORS,
  emailGateway,
  isDnsFailure,
  mxHostAddresses,
  reverseName,
  selectSpfRecords,
  txtJoin,
  type ResolveResult,
  type SpfAnalysis,
  type Resolver,
  type RrType,
} from '@dv/mailsec';
import { scanObservation, type ScanField, type ScanOutcome } from '@dv/contracts';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { gatewayValue } from './gateway-values.ts';
import { formatIps, formatMx, formatPtr, formatRecords, formatSoa, formatSrv, hostName, joinSorted, sortIps } from './formats.ts';
import { setDkimFields, setDmarcFields, setSpfFields } from './mail-fields.ts';
import { OutcomeBuilder } from './outcome.ts';
import { setAServerFields, setMxServerFields } from './server-fields.ts';
import { lookupSrv } from './srv.ts';
import type { ScanDeps, ScanOptions } from './types.ts';
import { spfEmailSenders, targetedDkimSelectors, techInDns, VENDOR_DKIM_SELECTORS } from './vendors.ts';

/** Every field of a scan observation, in the contract's order. */
export const SCAN_FIELDS = Object.keys(scanObservation.shape).filter((k) => k !== 'scanned_at') as ScanField[];

const APEX = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'SOA', 'CAA'] as const satisfies readonly RrType[];
type Apex = { [T in (typeof APEX)[number]]: ResolveResult<T> };

/** `domain` must already be a checked, lower-case name (the API validates what it accepts). */
export async function scanDomain(domain: string, deps: ScanDeps, options: ScanOptions = {}): Promise<ScanOutcome> {
  const resolver = deps.shared ? deps.shared.scope(domain, deps.resolver) : countingResolver(deps.resolver);
  const out = new OutcomeBuilder();
  const failed = (res: { rcode: ResolveResult['rcode'] }): boolean => isDnsFailure(res.rcode);

  const apexP = Promise.all(APEX.map((t) => resolver.resolve(domain, t)));
  const spfP = analyzeSpf(domain, resolver);
  const sweep = (selectors: readonly string[]) =>
    discoverDkim(domain, resolver, { selectors, extraSelectors: options.knownSelectors ?? [], concurrency: PORTFOLIO_DEFAULTS.scanDkimConcurrency });
  // Without the full sweep, only the selectors of the vendors this domain points at: waiting for
  // MX, TXT and the SPF tree costs a round trip or two, and saves ~70 queries charged to the
  // domain's own operator (the budget a scan of a small host waits on).
  const dkimP = options.fullDkimSweep
    ? sweep(DKIM_SELECTORS)
    : Promise.all([apexP, spfP]).then(([apexList, spf]) => sweep(rescanDkimSelectors(apexList, spf)));
  const [apexList, www, bimi, srvList, dmarc, spf, dkim] = await Promise.all([
    apexP,
    resolver.resolve(`www.${domain}`, 'CNAME'),
    resolver.resolve(`default._bimi.${domain}`, 'TXT'),
    lookupSrv(domain, resolver),
    checkDmarc(domain, resolver),
    spfP,
    dkimP,
  ]);
  const r = Object.fromEntries(APEX.map((t, i) => [t, apexList[i]])) as Apex;

  // Second round: what needs the first answers (MX host addresses, reverse names of A/AAAA).
  const addresses = sortIps([...r.A.answers, ...r.AAAA.answers].map((rr) => rr.address)).slice(0, PORTFOLIO_DEFAULTS.scanPtrAddresses);
  const [mxHosts, ptrs] = await Promise.all([
    mxHostAddresses(r.MX.answers, resolver, PORTFOLIO_DEFAULTS.scanMxHostsChecked),
    Promise.all(addresses.map(async (ip) => ({ ip, result: await resolver.resolve(reverseName(ip), 'PTR') }))),
  ]);

  // Core DNS records.
  const txt = r.TXT.answers.map(txtJoin);
  out.set('mx', formatMx(r.MX.answers), !failed(r.MX));
  out.set('txt', formatRecords(txt), !failed(r.TXT));
  out.set('a_records', formatIps(r.A.answers.map((rr) => rr.address)), !failed(r.A));
  out.set('aaaa_records', formatIps(r.AAAA.answers.map((rr) => rr.address)), !failed(r.AAAA));
  out.set('ns', joinSorted(r.NS.answers.map((rr) => hostName(rr.host))), !failed(r.NS));
  out.set('soa', formatSoa(r.SOA.answers[0]), !failed(r.SOA));
  out.set('bimi', formatRecords(bimi.answers.map(txtJoin).filter((t) => /^\s*v\s*=\s*BIMI1\s*(?:;|$)/i.test(t))), !failed(bimi));
  out.set(
    'srv',
    formatSrv(srvList.flatMap(({ service, result }) => result.answers.map((a) => ({ service, priority: a.priority, weight: a.weight, port: a.port, target: a.target })))),
    !srvList.some(({ result }) => failed(result)),
  );
  out.set(
    'ptr',
    formatPtr(ptrs.flatMap(({ ip, result }) => result.answers.map((p) => ({ ip, name: p.target })))),
    !failed(r.A) && !failed(r.AAAA) && !ptrs.some((p) => failed(p.result)),
  );

  // Detection.
  const gateway = emailGateway(r.MX.answers);
  out.set('email_gateway', gatewayValue(domain, gateway), !failed(r.MX));
  const traces = {
    txt,
    mx: r.MX.answers.map((rr) => hostName(rr.exchange)),
    ns: r.NS.answers.map((rr) => hostName(rr.host)),
    cnames: [...r.A.cnames, ...www.answers.map((c) => c.target), ...www.cnames],
    caa: r.CAA.answers.filter((c) => c.tag === 'issue' || c.tag === 'issuewild').map((c) => c.value),
  };
  out.set('tech_in_dns', joinSorted(techInDns(traces)), ![r.TXT, r.MX, r.NS, r.CAA, r.A, www].some(failed));

  // Mail authentication.
  setSpfFields(out, failed(r.TXT), selectSpfRecords(r.TXT.answers), spf);
  setDmarcFields(out, dmarc);
  setDkimFields(out, dkim);

  // Servers.
  setMxServerFields(out, deps.geo, failed(r.MX), mxHosts);
  setAServerFields(out, deps.geo, { ips: r.A.answers.map((rr) => rr.address), failed: failed(r.A) }, { ips: r.AAAA.answers.map((rr) => rr.address), failed: failed(r.AAAA) });

  const { observation, unconfirmed } = out.finish((deps.now ?? (() => new Date()))(), SCAN_FIELDS);
  return { observation, unconfirmed, queries: resolver.queries };
}

/**
 * Vendor selectors for a scan without the full sweep: those of the vendors the MX, SPF senders and
 * TXT/MX technologies name. When MX, TXT or a part of the SPF tree failed nothing can be ruled out:
 * every vendor selector.
 */
function rescanDkimSelectors(apexList: ResolveResult<(typeof APEX)[number]>[], spf: SpfAnalysis): readonly string[] {
  const r = Object.fromEntries(APEX.map((t, i) => [t, apexList[i]])) as Apex;
  const senders = spfEmailSenders(spf.tree);
  if (isDnsFailure(r.MX.rcode) || isDnsFailure(r.TXT.rcode) || !senders.complete) return VENDOR_DKIM_SELECTORS;
  const mx = r.MX.answers.map((rr) => hostName(rr.exchange));
  const vendors = [
    emailGateway(r.MX.answers)?.name ?? '',
    ...senders.names,
    ...detectTechnology({ TXT: r.TXT.answers.map(txtJoin), MX: mx }).map((t) => t.name),
  ].filter(Boolean);
  return targetedDkimSelectors(vendors);
}

/** Without a shared cache, still count what this scan asked. */
function countingResolver(base: Resolver): Resolver & { readonly queries: number } {
  let queries = 0;
  return {
    get queries() {
      return queries;
    },
    async resolve(name, type) {
      const result = await base.resolve(name, type);
      if (!result.fromCache) queries++;
      return result;
    },
  };
}
