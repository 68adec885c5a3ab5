// SPF, DMARC and DKIM fields from mailsec's analyses (analyzeSpf, checkDmarc, discoverDkim).
import type { DkimDiscovery, DmarcCheck, SpfAnalysis, SpfTreeNode } from '@dv/mailsec';
import { formatRecords, hostName, joinSorted } from './formats.ts';
import type { OutcomeBuilder } from './outcome.ts';
import { dkimVendors, spfEmailSenders } from './vendors.ts';

/**
 * `spf` is the apex record(s) from the apex TXT answer; the counts and senders come from the tree.
 * The counts are RFC 7208 4.6.4's: every include/a/mx/ptr/exists/redirect, in the record (main)
 * and below it (nested). A subtree that failed to resolve makes the nested and total counts lower
 * bounds, so they and the limit status are unconfirmed, except that a lower bound already over
 * the limit confirms `over_limit`.
 */
export function setSpfFields(out: OutcomeBuilder, apexTxtFailed: boolean, spfRecords: readonly string[], analysis: SpfAnalysis): void {
  out.set('spf', formatRecords(spfRecords), !apexTxtFailed);
  const rootFailed = apexTxtFailed || analysis.status === 'temperror';
  if (rootFailed || analysis.status === 'none' || analysis.status === 'invalid_domain') {
    out.setAll({ spf_main_lookups: null, spf_nested_lookups: null, spf_total_lookups: null, spf_limit: null, spf_email_senders: null }, !rootFailed);
    return;
  }
  const complete = !hasTemperror(analysis.tree);
  out.set('spf_main_lookups', analysis.lookups.main);
  out.set('spf_nested_lookups', analysis.lookups.nested, complete);
  out.set('spf_total_lookups', analysis.lookups.total, complete);
  out.set('spf_limit', analysis.verdict, complete || analysis.verdict === 'over_limit');
  const senders = spfEmailSenders(analysis.tree);
  out.set('spf_email_senders', joinSorted(senders.names), senders.complete);
}

function hasTemperror(node: SpfTreeNode): boolean {
  return node.status === 'temperror' || node.children.some(hasTemperror);
}

/**
 * DMARC as receivers find it (RFC 7489 6.6.3, organizational fallback included). Several records
 * mean no policy applies: `dmarc` lists them all, the policy and report addresses are null.
 */
export function setDmarcFields(out: OutcomeBuilder, dmarc: DmarcCheck): void {
  if (dmarc.status === 'error') {
    out.setAll({ dmarc: null, dmarc_policy_p: null, dmarc_rua: null, dmarc_ruf: null }, false);
    return;
  }
  const single = dmarc.records.length === 1 ? dmarc.parsed : null;
  out.set('dmarc', formatRecords(dmarc.records));
  out.set('dmarc_policy_p', dmarc.policy);
  out.set('dmarc_rua', joinSorted(single?.rua.map((u) => u.uri) ?? []));
  out.set('dmarc_ruf', joinSorted(single?.ruf.map((u) => u.uri) ?? []));
}

/**
 * DKIM keys found among the selectors tried. A selector whose lookup failed leaves the sweep
 * incomplete: what was found is kept and every DKIM field is unconfirmed.
 */
export function setDkimFields(out: OutcomeBuilder, dkim: DkimDiscovery): void {
  const confirmed = dkim.failed.length === 0 && dkim.status !== 'unknown';
  const keys = [...dkim.found].sort((a, b) => (a.selector < b.selector ? -1 : a.selector > b.selector ? 1 : 0));
  out.setAll(
    {
      dkim_hosts: joinSorted(keys.map((k) => hostName(k.name))),
      dkim_selectors: joinSorted(keys.map((k) => k.selector)),
      dkim_vendors: joinSorted(dkimVendors(keys)),
      dkim: joinSorted(keys.map(describeKey)),
    },
    confirmed,
  );
}

/** "selector1 rsa 2048", "old rsa revoked", "ed ed25519 256 testing". */
function describeKey(found: DkimDiscovery['found'][number]): string {
  const k = found.key;
  const parts = [found.selector, k.keyType.toLowerCase()];
  if (k.revoked) parts.push('revoked');
  else parts.push(k.bits === null ? 'unreadable' : String(k.bits));
  if (k.testing) parts.push('testing');
  return parts.join(' ');
}
