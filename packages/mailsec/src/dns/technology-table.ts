// Technology detection table: what a domain's public DNS says about the services it uses.
// Ordered rows; every row that matches is reported once (the first evidence wins).
//
// source:
//   TXT      an apex TXT record (domain-verification tokens)
//   SPF      an include:/redirect= target in the apex SPF record (who sends mail for the domain)
//   MX       an MX exchange (inbound mail services the provider table does not cover)
//   NS       a name server host (DNS hosting)
//   CNAME    the CNAME chain of the domain or of www.<domain> (web hosting / CDN)
//   CAA      the value of a CAA issue/issuewild record (certificate authorities allowed)
// Host patterns match a whole label suffix, case-insensitively ("awsdns-" style fragments are
// written as explicit regexes); TXT patterns match the start.
// Every row names the vendor's own documentation of the token or host (`doc`), so it can be checked.

import { hostSuffix as host } from './host-pattern.ts';
import { SPF_SENDERS } from './spf-senders.ts';

export type TechnologySource = 'TXT' | 'SPF' | 'MX' | 'NS' | 'CNAME' | 'CAA';

export interface TechnologyRow {
  name: string;
  category: 'verification' | 'email_sending' | 'email_inbound' | 'dns_hosting' | 'web_hosting' | 'cdn' | 'certificate_authority';
  source: TechnologySource;
  pattern: RegExp;
  /** Where the vendor documents this token or host: a URL or the title of its own documentation. */
  doc: string;
}

function txt(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
}

export const TECHNOLOGY_TABLE: readonly TechnologyRow[] = [
  // Domain-verification TXT tokens.
  { name: 'Google (Search Console / Workspace)', category: 'verification', source: 'TXT', pattern: txt('google-site-verification='), doc: 'Google Search Console Help: "Verify your site ownership" (DNS record: google-site-verification=)' },
  { name: 'Microsoft 365', category: 'verification', source: 'TXT', pattern: /^MS=ms\d+/i, doc: 'https://learn.microsoft.com/en-us/microsoft-365/admin/setup/add-domain (TXT MS=ms########)' },
  { name: 'Meta (Facebook)', category: 'verification', source: 'TXT', pattern: txt('facebook-domain-verification='), doc: 'Meta Business Help Center: "Verify your domain" (facebook-domain-verification=)' },
  { name: 'Atlassian', category: 'verification', source: 'TXT', pattern: txt('atlassian-domain-verification='), doc: 'Atlassian Support: "Verify a domain for your organization" (atlassian-domain-verification=)' },
  { name: 'Apple', category: 'verification', source: 'TXT', pattern: txt('apple-domain-verification='), doc: 'Apple Business Manager User Guide: "Verify a domain" (apple-domain-verification=)' },
  { name: 'DocuSign', category: 'verification', source: 'TXT', pattern: txt('docusign='), doc: 'DocuSign Admin Guide: "Domains: claim a domain" (TXT docusign=)' },
  { name: 'Stripe', category: 'verification', source: 'TXT', pattern: txt('stripe-verification='), doc: 'Stripe docs: "Verify your domain" (stripe-verification=)' },
  { name: 'Adobe', category: 'verification', source: 'TXT', pattern: /^adobe-(?:idp-site|sign)-verification[=:]/i, doc: 'Adobe Admin Console Help: "Verify ownership of a domain" (adobe-idp-site-verification=)' },
  { name: 'Slack', category: 'verification', source: 'TXT', pattern: txt('slack-domain-verification='), doc: 'Slack Help Center: "Verify your domain" (slack-domain-verification=)' },
  { name: 'Zoom', category: 'verification', source: 'TXT', pattern: /^zoom[-_]?verif(?:y|ication)[=_]/i, doc: 'Zoom Support: "Associating a domain with your account" (ZOOM_verify_)' },
  { name: 'Dropbox', category: 'verification', source: 'TXT', pattern: txt('dropbox-domain-verification='), doc: 'Dropbox Help: "Domain verification" (dropbox-domain-verification=)' },
  { name: 'HubSpot', category: 'verification', source: 'TXT', pattern: /^hubspot-(?:developer|domain)-verification=/i, doc: 'HubSpot Knowledge Base: "Verify your domain" (hubspot-developer-verification= / hubspot-domain-verification=)' },
  { name: 'Cisco Webex', category: 'verification', source: 'TXT', pattern: /^(?:cisco-ci-domain-verification=|webexdomainverification)/i, doc: 'Webex Help Center: "Add, verify, and claim domains" (cisco-ci-domain-verification=)' },
  { name: 'Zoho', category: 'verification', source: 'TXT', pattern: txt('zoho-verification='), doc: 'Zoho Mail Help: "Domain verification - TXT method" (zoho-verification=)' },
  { name: 'Yandex', category: 'verification', source: 'TXT', pattern: txt('yandex-verification:'), doc: 'Yandex Webmaster Help: "Verifying site rights" (yandex-verification:)' },
  { name: 'GlobalSign', category: 'verification', source: 'TXT', pattern: txt('globalsign-domain-verification='), doc: 'GlobalSign Support: "DNS TXT record domain verification" (globalsign-domain-verification=)' },
  { name: 'OneTrust', category: 'verification', source: 'TXT', pattern: txt('onetrust-domain-verification='), doc: 'OneTrust docs: "Domain verification" (onetrust-domain-verification=)' },
  { name: 'Miro', category: 'verification', source: 'TXT', pattern: txt('miro-verification='), doc: 'Miro Help Center: "Domain control" (miro-verification=)' },
  { name: 'OpenAI', category: 'verification', source: 'TXT', pattern: txt('openai-domain-verification='), doc: 'OpenAI Help Center: "Domain verification" (openai-domain-verification=)' },
  { name: 'KnowBe4', category: 'verification', source: 'TXT', pattern: txt('knowbe4-site-verification='), doc: 'KnowBe4 Knowledge Base: "Domain verification" (knowbe4-site-verification=)' },
  { name: 'TeamViewer', category: 'verification', source: 'TXT', pattern: txt('teamviewer-sso-verification='), doc: 'TeamViewer Knowledge Base: "Single Sign-On: domain verification" (teamviewer-sso-verification=)' },
  { name: 'Citrix', category: 'verification', source: 'TXT', pattern: txt('citrix-verification-code='), doc: 'Citrix docs: "Domain verification" (citrix-verification-code=)' },
  { name: 'Brevo (Sendinblue)', category: 'verification', source: 'TXT', pattern: /^(?:brevo|sendinblue)-code:/i, doc: 'Brevo Help Center: "Authenticate your domain" (brevo-code:)' },
  { name: 'Twilio', category: 'verification', source: 'TXT', pattern: txt('twilio-domain-verification='), doc: 'Twilio docs: "Domain verification" (twilio-domain-verification=)' },
  { name: 'Postman', category: 'verification', source: 'TXT', pattern: txt('postman-domain-verification='), doc: 'Postman Learning Center: "Domain verification" (postman-domain-verification=)' },
  { name: 'Pinterest', category: 'verification', source: 'TXT', pattern: txt('pinterest-site-verification='), doc: 'Pinterest Help: "Claim your website" (pinterest-site-verification=)' },
  { name: 'Canva', category: 'verification', source: 'TXT', pattern: txt('canva-site-verification='), doc: 'Canva Help Center: "Verify your domain" (canva-site-verification=)' },
  { name: 'Have I Been Pwned', category: 'verification', source: 'TXT', pattern: txt('have-i-been-pwned-verification='), doc: 'Have I Been Pwned: "Domain search: verify by DNS TXT record" (have-i-been-pwned-verification=)' },
  { name: 'Atlassian Statuspage', category: 'verification', source: 'TXT', pattern: txt('status-page-domain-verification='), doc: 'Atlassian Statuspage Support: "Domain verification" (status-page-domain-verification=)' },
  { name: 'Mail.ru', category: 'verification', source: 'TXT', pattern: txt('mailru-verification:'), doc: 'Mail.ru for Business Help: "Domain verification" (mailru-verification:)' },

  // Senders authorized in SPF: one table of their own (spf-senders.ts).
  ...SPF_SENDERS.map((r): TechnologyRow => ({ name: r.name, category: 'email_sending', source: 'SPF', pattern: r.pattern, doc: r.doc })),

  // Inbound mail services outside the gateway/provider table.
  { name: 'Cloudflare Email Routing', category: 'email_inbound', source: 'MX', pattern: host('mx.cloudflare.net'), doc: 'https://developers.cloudflare.com/email-routing/ (MX route*.mx.cloudflare.net)' },
  { name: 'Amazon SES (inbound)', category: 'email_inbound', source: 'MX', pattern: /^inbound-smtp\.[a-z0-9-]+\.amazonaws\.com\.?$/i, doc: 'https://docs.aws.amazon.com/ses/latest/dg/receiving-email-mx-record.html' },
  { name: 'Mailgun (inbound)', category: 'email_inbound', source: 'MX', pattern: host('mailgun.org'), doc: 'Mailgun docs: "Receiving messages: MX records" (mxa.mailgun.org)' },
  { name: 'ImprovMX', category: 'email_inbound', source: 'MX', pattern: host('improvmx.com'), doc: 'ImprovMX docs: "Setup: MX records" (mx1.improvmx.com)' },

  // DNS hosting.
  { name: 'Cloudflare DNS', category: 'dns_hosting', source: 'NS', pattern: host('ns.cloudflare.com'), doc: 'https://developers.cloudflare.com/dns/zone-setups/full-setup/ (<name>.ns.cloudflare.com)' },
  { name: 'AWS Route 53', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)awsdns-\d+\.(?:com|net|org|co\.uk)\.?$/i, doc: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/SOA-NSrecords.html (ns-*.awsdns-*.com/.net/.org/.co.uk)' },
  { name: 'Azure DNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)azure-dns\.(?:com|net|org|info)\.?$/i, doc: 'https://learn.microsoft.com/en-us/azure/dns/dns-delegate-domain-azure-dns (ns*-*.azure-dns.com/.net/.org/.info)' },
  { name: 'Google Cloud DNS', category: 'dns_hosting', source: 'NS', pattern: /^ns-cloud-[a-e]\d\.googledomains\.com\.?$/i, doc: 'Google Cloud DNS docs: "Update your domain\'s name servers" (ns-cloud-[a-e][1-4].googledomains.com)' },
  { name: 'GoDaddy DNS', category: 'dns_hosting', source: 'NS', pattern: host('domaincontrol.com'), doc: 'GoDaddy Help: "Change nameservers for my domain" (*.domaincontrol.com)' },
  { name: 'Namecheap DNS', category: 'dns_hosting', source: 'NS', pattern: host('registrar-servers.com'), doc: 'Namecheap Knowledge Base: "How to change DNS for a domain" (dns*.registrar-servers.com)' },
  { name: 'NS1', category: 'dns_hosting', source: 'NS', pattern: host('nsone.net'), doc: 'NS1 (IBM NS1 Connect) docs: "Delegating a domain to NS1" (*.nsone.net)' },
  { name: 'UltraDNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)ultradns\.(?:com|net|org|biz|info|co\.uk)\.?$/i, doc: 'Vercara UltraDNS docs: "Name server delegation" (*.ultradns.com/.net/.org/.biz)' },
  { name: 'Akamai Edge DNS', category: 'dns_hosting', source: 'NS', pattern: host('akam.net'), doc: 'Akamai TechDocs: "Edge DNS: delegate your zone" (*.akam.net)' },
  { name: 'DNSimple', category: 'dns_hosting', source: 'NS', pattern: host('dnsimple.com'), doc: 'DNSimple Help: "Pointing a domain to DNSimple" (ns*.dnsimple.com)' },
  { name: 'DigitalOcean DNS', category: 'dns_hosting', source: 'NS', pattern: host('digitalocean.com'), doc: 'https://docs.digitalocean.com/products/networking/dns/getting-started/dns-registrars/ (ns*.digitalocean.com)' },
  { name: 'Hetzner DNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)(?:hetzner\.com|first-ns\.de|second-ns\.de)\.?$/i, doc: 'Hetzner Docs: "DNS Console: name servers" (*.hetzner.com, *.first-ns.de, *.second-ns.de)' },
  { name: 'OVHcloud DNS', category: 'dns_hosting', source: 'NS', pattern: host('ovh.net'), doc: 'OVHcloud docs: "Modifying DNS servers" (*.ovh.net)' },
  { name: 'Gandi LiveDNS', category: 'dns_hosting', source: 'NS', pattern: host('gandi.net'), doc: 'Gandi docs: "LiveDNS name servers" (*.gandi.net)' },
  { name: 'Vercel DNS', category: 'dns_hosting', source: 'NS', pattern: host('vercel-dns.com'), doc: 'https://vercel.com/docs/projects/domains (ns*.vercel-dns.com)' },

  // Web hosting and CDNs from CNAME chains.
  { name: 'Amazon CloudFront', category: 'cdn', source: 'CNAME', pattern: host('cloudfront.net'), doc: 'https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/CNAMEs.html (*.cloudfront.net)' },
  { name: 'Cloudflare', category: 'cdn', source: 'CNAME', pattern: host('cdn.cloudflare.net'), doc: 'https://developers.cloudflare.com/dns/zone-setups/partial-setup/ (<name>.cdn.cloudflare.net)' },
  { name: 'Fastly', category: 'cdn', source: 'CNAME', pattern: host('fastly.net'), doc: 'Fastly docs: "Adding CNAME records" (*.fastly.net)' },
  { name: 'Akamai', category: 'cdn', source: 'CNAME', pattern: /(?:^|\.)(?:edgekey|edgesuite|akamaiedge)\.net\.?$/i, doc: 'Akamai TechDocs: "Edge hostnames" (*.edgekey.net, *.edgesuite.net, *.akamaiedge.net)' },
  { name: 'Azure Front Door / CDN', category: 'cdn', source: 'CNAME', pattern: /(?:^|\.)(?:azureedge\.net|azurefd\.net)\.?$/i, doc: 'https://learn.microsoft.com/en-us/azure/frontdoor/front-door-custom-domain (*.azurefd.net, *.azureedge.net)' },
  { name: 'Azure App Service', category: 'web_hosting', source: 'CNAME', pattern: host('azurewebsites.net'), doc: 'https://learn.microsoft.com/en-us/azure/app-service/app-service-web-tutorial-custom-domain (*.azurewebsites.net)' },
  { name: 'GitHub Pages', category: 'web_hosting', source: 'CNAME', pattern: host('github.io'), doc: 'https://docs.github.com/en/pages/configuring-a-custom-domain-for-your-github-pages-site (*.github.io)' },
  { name: 'Netlify', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)netlify\.(?:app|com)\.?$/i, doc: 'Netlify docs: "Configure external DNS" (*.netlify.app)' },
  { name: 'Vercel', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)vercel(?:-dns\.com|\.app)\.?$/i, doc: 'https://vercel.com/docs/projects/domains (cname.vercel-dns.com)' },
  { name: 'Heroku', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)(?:herokudns\.com|herokuapp\.com)\.?$/i, doc: 'Heroku Dev Center: "Custom Domain Names for Apps" (*.herokudns.com)' },
  { name: 'Shopify', category: 'web_hosting', source: 'CNAME', pattern: host('myshopify.com'), doc: 'Shopify Help Center: "Connecting a third-party domain" (shops.myshopify.com)' },
  { name: 'Squarespace', category: 'web_hosting', source: 'CNAME', pattern: host('squarespace.com'), doc: 'Squarespace Help: "Connecting a domain" (ext-cust.squarespace.com)' },
  { name: 'Wix', category: 'web_hosting', source: 'CNAME', pattern: host('wixdns.net'), doc: 'Wix Help Center: "Connecting a domain via pointing" (*.wixdns.net)' },
  { name: 'WP Engine', category: 'web_hosting', source: 'CNAME', pattern: host('wpengine.com'), doc: 'WP Engine Support: "Point DNS to WP Engine" (*.wpengine.com)' },
  { name: 'HubSpot CMS', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)hs-sites(?:-eu1)?\.com\.?$/i, doc: 'HubSpot Knowledge Base: "Connect a domain to HubSpot" (*.hs-sites.com)' },

  // Certificate authorities allowed by CAA.
  { name: "Let's Encrypt", category: 'certificate_authority', source: 'CAA', pattern: /^letsencrypt\.org\b/i, doc: 'https://letsencrypt.org/docs/caa/' },
  { name: 'DigiCert', category: 'certificate_authority', source: 'CAA', pattern: /^digicert\.com\b/i, doc: 'DigiCert Knowledge Base: "DNS CAA records" (issue "digicert.com")' },
  { name: 'Sectigo', category: 'certificate_authority', source: 'CAA', pattern: /^(?:sectigo|comodoca)\.com\b/i, doc: 'Sectigo Knowledge Base: "CAA records" (issue "sectigo.com")' },
  { name: 'Google Trust Services', category: 'certificate_authority', source: 'CAA', pattern: /^pki\.goog\b/i, doc: 'https://pki.goog/faq/ (CAA issue "pki.goog")' },
  { name: 'Amazon Trust Services', category: 'certificate_authority', source: 'CAA', pattern: /^(?:amazon(?:trust)?\.com|awstrust\.com)\b/i, doc: 'https://docs.aws.amazon.com/acm/latest/userguide/setup-caa.html' },
  { name: 'GlobalSign', category: 'certificate_authority', source: 'CAA', pattern: /^globalsign\.com\b/i, doc: 'GlobalSign Support: "CAA records" (issue "globalsign.com")' },
];
