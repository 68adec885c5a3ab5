// The vendor tables, table-driven: each signal read through its own table, every row carrying the
// vendor's documentation, and the walk of the SPF tree that names the senders.
import { describe, expect, it } from 'vitest';
import { DKIM_CNAME_PROVIDERS, DKIM_SELECTOR_PROVIDERS, SPF_SENDERS, spfSenderFor, TECHNOLOGY_TABLE, type SpfTreeNode } from '@dv/mailsec';
import { dkimVendors, spfEmailSenders, techInDns, VENDOR_DKIM_SELECTORS } from './vendors.ts';

describe('every table row names its source', () => {
  it.each([
    ['SPF_SENDERS', SPF_SENDERS.map((r) => ({ name: r.name, doc: r.doc }))],
    ['TECHNOLOGY_TABLE', TECHNOLOGY_TABLE.map((r) => ({ name: r.name, doc: r.doc }))],
    ['DKIM_CNAME_PROVIDERS', DKIM_CNAME_PROVIDERS.map((r) => ({ name: r.provider, doc: r.doc }))],
    ['DKIM_SELECTOR_PROVIDERS', DKIM_SELECTOR_PROVIDERS.map((r) => ({ name: r.provider, doc: r.doc }))],
  ])('%s', (_table, rows) => {
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row.doc.trim().length, row.name).toBeGreaterThan(10);
  });

  it('the technology table takes its SPF rows from SPF_SENDERS (one table per fact)', () => {
    expect(TECHNOLOGY_TABLE.filter((r) => r.source === 'SPF').map((r) => r.name)).toEqual(SPF_SENDERS.map((r) => r.name));
  });
});

describe('SPF include -> sending service', () => {
  it.each([
    ['_spf.google.com', 'Google Workspace'],
    ['spf.protection.outlook.com', 'Microsoft 365'],
    ['amazonses.com', 'Amazon SES'],
    ['sendgrid.net', 'SendGrid'],
    ['u123.wl.sendgrid.net', 'SendGrid'],
    ['servers.mcsv.net', 'Mailchimp'],
    ['spf.mandrillapp.com', 'Mandrill'],
    ['eu._netblocks.mimecast.com', 'Mimecast'],
    ['_spf.salesforce.com', 'Salesforce'],
    ['cust-spf.exacttarget.com', 'Salesforce Marketing Cloud'],
    ['mail.zendesk.com', 'Zendesk'],
    ['spf.mtasv.net', 'Postmark'],
    ['spf.brevo.com', 'Brevo (Sendinblue)'],
    ['spf.constantcontact.com', 'Constant Contact'],
    ['_spf.atlassian.net', 'Atlassian'],
    ['shops.shopify.com', 'Shopify'],
    ['_SPF.GOOGLE.COM.', 'Google Workspace'],
    ['_spf.google.com.evil.example', null],
    ['x_spf.google.com', null],
    ['_spf.example.com', null],
  ])('%s -> %s', (target, name) => expect(spfSenderFor(target)?.name ?? null).toBe(name));
});

describe('spfEmailSenders', () => {
  const node = (domain: string, children: SpfTreeNode[] = [], status: SpfTreeNode['status'] = 'ok'): SpfTreeNode => ({
    domain, via: 'include', status, records: [], terms: [], lookups: 0, voidLookups: 0, totalLookups: 0, totalVoidLookups: 0, children, warnings: [],
  });

  it('walks the domain\'s own includes but not into a vendor\'s', () => {
    // _spf.google.com includes _netblocks.google.com: not a separate sender. A vendor that
    // happened to include another vendor is named once, as itself.
    const tree = node('example.com', [node('_spf.example.com', [node('_spf.google.com', [node('sendgrid.net')]), node('sendgrid.net')])]);
    expect(spfEmailSenders(tree)).toEqual({ names: ['Google Workspace', 'SendGrid'], complete: true });
  });

  it('is incomplete when one of the domain\'s own includes failed, not when a vendor\'s inner include did', () => {
    expect(spfEmailSenders(node('example.com', [node('_spf.example.com', [], 'temperror'), node('_spf.google.com')])).complete).toBe(false);
    expect(spfEmailSenders(node('example.com', [node('_spf.google.com', [node('_netblocks.google.com', [], 'temperror')])])).complete).toBe(true);
  });

  it('does not name the domain itself, even when it is a vendor zone', () => {
    expect(spfEmailSenders(node('sendgrid.net')).names).toEqual([]);
  });
});

describe('DKIM selector / key host -> signer', () => {
  it.each<[string, string[], string | null]>([
    ['selector1', ['selector1-contoso-com._domainkey.contoso.onmicrosoft.com'], 'Microsoft 365'],
    ['s1', ['s1.domainkey.u1234.wl.sendgrid.net'], 'SendGrid'],
    ['abcdefghijklmnop', ['abcdefghijklmnop.dkim.amazonses.com'], 'Amazon SES'],
    ['k1', ['dkim.mcsv.net'], 'Mailchimp'],
    ['google', [], 'Google Workspace'],
    ['selector2', [], 'Microsoft 365'],
    ['k2', [], 'Mailchimp'],
    ['mimecast', [], 'Mimecast'],
    ['hs1', [], 'HubSpot'],
    // The CNAME names the host, whatever the selector says.
    ['google', ['google._domainkey.x.sendgrid.net'], 'SendGrid'],
    ['default', [], null],
    ['mail', [], null],
  ])('%s %j -> %s', (selector, cnames, vendor) => expect(dkimVendors([{ selector, cnames }])).toEqual(vendor ? [vendor] : []));

  it('tries every vendor selector, and only those, on every scan', () => {
    expect(VENDOR_DKIM_SELECTORS).toEqual(expect.arrayContaining(['google', 'selector1', 'selector2', 'k1', 's1', 's2', 'mandrill', 'pm', 'zendesk1', 'mimecast']));
    expect(VENDOR_DKIM_SELECTORS).not.toContain('default');
    expect(VENDOR_DKIM_SELECTORS.length).toBeLessThan(100);
  });
});

describe('tech_in_dns', () => {
  it.each<[string, Partial<Parameters<typeof techInDns>[0]>, string[]]>([
    ['verification tokens', { txt: ['google-site-verification=x', 'MS=ms123', 'atlassian-domain-verification=y', 'not-a-token=z'] }, ['Google (Search Console / Workspace)', 'Microsoft 365', 'Atlassian']],
    ['DNS hosting', { ns: ['ns-1.awsdns-01.org', 'dana.ns.cloudflare.com'] }, ['Cloudflare DNS', 'AWS Route 53']],
    ['inbound mail service', { mx: ['route1.mx.cloudflare.net'] }, ['Cloudflare Email Routing']],
    ['web hosting and CDN', { cnames: ['example.github.io', 'd1.cloudfront.net'] }, ['Amazon CloudFront', 'GitHub Pages']],
    ['certificate authorities', { caa: ['letsencrypt.org', 'pki.goog; cansignhttpexchanges=yes'] }, ["Let's Encrypt", 'Google Trust Services']],
    ['an SPF sender is not a DNS trace', { txt: ['v=spf1 include:_spf.google.com ~all'] }, []],
  ])('%s', (_label, traces, names) => {
    expect(techInDns({ txt: [], mx: [], ns: [], cnames: [], caa: [], ...traces })).toEqual(names);
  });
});
