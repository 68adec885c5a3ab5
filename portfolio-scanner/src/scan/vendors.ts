// Vendor detection over what a scan already fetched, each signal read through its own table in
// @dv/mailsec: SPF include -> sending service (SPF_SENDERS), DKIM selector/key host -> signer
// (DKIM_CNAME_PROVIDERS, DKIM_SELECTOR_PROVIDERS), TXT tokens and other DNS traces -> technology
// (TECHNOLOGY_TABLE). MX host -> gateway is @dv/verdict's provider table (emailGateway). Pure.
import { DKIM_SELECTORS, detectTechnology, dkimProvider, spfSenderFor, type DkimSelectorFound, type SpfTreeNode } from '@dv/mailsec';

export interface SpfSenders {
  names: string[];
  /** false when a part of the tree that could have named a sender failed to resolve (temperror). */
  complete: boolean;
}

/**
 * The sending services a domain's SPF authorizes. The tree is walked from the domain's record; a
 * node that is a vendor's include names that vendor and is not descended into (what a vendor
 * includes is its own business: Google's _netblocks are not separate senders). The domain's own
 * intermediate records (include:_spf.example.com holding the vendors) are walked through.
 */
export function spfEmailSenders(tree: SpfTreeNode): SpfSenders {
  const names = new Set<string>();
  let complete = true;
  const walk = (node: SpfTreeNode, root: boolean): void => {
    const vendor = root ? null : spfSenderFor(node.domain);
    if (vendor) {
      names.add(vendor.name);
      return;
    }
    if (node.status === 'temperror') complete = false;
    for (const child of node.children) walk(child, false);
  };
  walk(tree, true);
  return { names: [...names], complete };
}

/** Signers of the DKIM keys found: by the host the key's CNAME points at, else by selector name. */
export function dkimVendors(found: readonly Pick<DkimSelectorFound, 'selector' | 'cnames'>[]): string[] {
  return [...new Set(found.flatMap((f) => dkimProvider(f.selector, f.cnames)?.provider ?? []))];
}

/**
 * The selectors every scan tries: each selector of the sweep list that the selector table ties to
 * a vendor (google, selector1/2, k1-k3, s1/s2, ...). The rest of the list is the full sweep.
 */
export const VENDOR_DKIM_SELECTORS: readonly string[] = DKIM_SELECTORS.filter((s) => dkimProvider(s, [])?.evidence === 'selector');

/**
 * The vendor selectors worth asking on a scan without the full sweep: those of the vendors the
 * domain's own DNS points at (MX provider, SPF senders, TXT/MX technologies). A vendor signs with
 * its selectors only for domains that send through it, and those name it in their MX, SPF or a
 * verification TXT; a key of a vendor the domain does not point at waits for the weekly full sweep
 * (the previous scan's selectors are always asked again, so nothing found is lost). Vendor names
 * differ between the tables ("Brevo (Sendinblue)", "Zoho Mail"/"Zoho"), so they are matched by
 * their first word, lower-cased, with the one alias the tables need.
 */
export function targetedDkimSelectors(vendorNames: readonly string[]): string[] {
  const keys = new Set(vendorNames.map(vendorKey));
  return VENDOR_SELECTOR_KEYS.filter(([, key]) => keys.has(key)).map(([selector]) => selector);
}

const VENDOR_KEY_ALIASES: Readonly<Record<string, string>> = { freshdesk: 'freshworks' };

/** Each vendor selector with its vendor's key, once (every rescan asks; the table does not change). */
const VENDOR_SELECTOR_KEYS: readonly (readonly [string, string])[] = VENDOR_DKIM_SELECTORS.flatMap((s) => {
  const provider = dkimProvider(s, [])?.provider;
  return provider === undefined ? [] : [[s, vendorKey(provider)] as const];
});

function vendorKey(name: string): string {
  const word = /[a-z0-9]+/.exec(name.toLowerCase())?.[0] ?? '';
  return VENDOR_KEY_ALIASES[word] ?? word;
}

export interface DnsTraces {
  txt: readonly string[];
  mx: readonly string[];
  ns: readonly string[];
  cnames: readonly string[];
  caa: readonly string[];
}

/**
 * tech_in_dns: every technology the DNS shows (verification tokens, inbound mail services outside
 * the gateway table, DNS hosting, web hosting and CDNs, certificate authorities). Sending services
 * are spf_email_senders' field, so the SPF rows are left out here.
 */
export function techInDns(traces: DnsTraces): string[] {
  const found = detectTechnology({ TXT: traces.txt, MX: traces.mx, NS: traces.ns, CNAME: traces.cnames, CAA: traces.caa });
  return [...new Set(found.filter((t) => t.category !== 'email_sending').map((t) => t.name))];
}
