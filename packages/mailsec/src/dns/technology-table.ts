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
// Host patterns match a whole label suffix, case-insensitively; TXT patterns match the start.

export type TechnologySource = 'TXT' | 'SPF' | 'MX' | 'NS' | 'CNAME' | 'CAA';

export interface TechnologyRow {
  name: string;
  category: 'verification' | 'email_sending' | 'email_inbound' | 'dns_hosting' | 'web_hosting' | 'cdn' | 'certificate_authority';
  source: TechnologySource;
  pattern: RegExp;
}

/** Host suffix pattern: "awsdns-" style fragments are written as explicit regexes instead. */
function host(suffix: string): RegExp {
  return new RegExp(`(?:^|\\.)${suffix.replace(/\./g, '\\.')}\\.?$`, 'i');
}

function txt(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
}

export const TECHNOLOGY_TABLE: readonly TechnologyRow[] = [
  // Domain-verification TXT tokens.
  { name: 'Google (Search Console / Workspace)', category: 'verification', source: 'TXT', pattern: txt('google-site-verification=') },
  { name: 'Microsoft 365', category: 'verification', source: 'TXT', pattern: /^MS=ms\d+/i },
  { name: 'Meta (Facebook)', category: 'verification', source: 'TXT', pattern: txt('facebook-domain-verification=') },
  { name: 'Atlassian', category: 'verification', source: 'TXT', pattern: txt('atlassian-domain-verification=') },
  { name: 'Apple', category: 'verification', source: 'TXT', pattern: txt('apple-domain-verification=') },
  { name: 'DocuSign', category: 'verification', source: 'TXT', pattern: txt('docusign=') },
  { name: 'Stripe', category: 'verification', source: 'TXT', pattern: txt('stripe-verification=') },
  { name: 'Adobe', category: 'verification', source: 'TXT', pattern: /^adobe-(?:idp-site|sign)-verification[=:]/i },
  { name: 'Slack', category: 'verification', source: 'TXT', pattern: txt('slack-domain-verification=') },
  { name: 'Zoom', category: 'verification', source: 'TXT', pattern: /^zoom[-_]?verif(?:y|ication)[=_]/i },
  { name: 'Dropbox', category: 'verification', source: 'TXT', pattern: txt('dropbox-domain-verification=') },
  { name: 'HubSpot', category: 'verification', source: 'TXT', pattern: /^hubspot-(?:developer|domain)-verification=/i },
  { name: 'Cisco Webex', category: 'verification', source: 'TXT', pattern: /^(?:cisco-ci-domain-verification=|webexdomainverification)/i },
  { name: 'Zoho', category: 'verification', source: 'TXT', pattern: txt('zoho-verification=') },
  { name: 'Yandex', category: 'verification', source: 'TXT', pattern: txt('yandex-verification:') },
  { name: 'GlobalSign', category: 'verification', source: 'TXT', pattern: txt('globalsign-domain-verification=') },
  { name: 'OneTrust', category: 'verification', source: 'TXT', pattern: txt('onetrust-domain-verification=') },
  { name: 'Miro', category: 'verification', source: 'TXT', pattern: txt('miro-verification=') },
  { name: 'OpenAI', category: 'verification', source: 'TXT', pattern: txt('openai-domain-verification=') },
  { name: 'KnowBe4', category: 'verification', source: 'TXT', pattern: txt('knowbe4-site-verification=') },
  { name: 'TeamViewer', category: 'verification', source: 'TXT', pattern: txt('teamviewer-sso-verification=') },
  { name: 'Citrix', category: 'verification', source: 'TXT', pattern: txt('citrix-verification-code=') },
  { name: 'Brevo (Sendinblue)', category: 'verification', source: 'TXT', pattern: /^(?:brevo|sendinblue)-code:/i },
  { name: 'Twilio', category: 'verification', source: 'TXT', pattern: txt('twilio-domain-verification=') },
  { name: 'Postman', category: 'verification', source: 'TXT', pattern: txt('postman-domain-verification=') },
  { name: 'Pinterest', category: 'verification', source: 'TXT', pattern: txt('pinterest-site-verification=') },
  { name: 'Canva', category: 'verification', source: 'TXT', pattern: txt('canva-site-verification=') },
  { name: 'Have I Been Pwned', category: 'verification', source: 'TXT', pattern: txt('have-i-been-pwned-verification=') },
  { name: 'Atlassian Statuspage', category: 'verification', source: 'TXT', pattern: txt('status-page-domain-verification=') },
  { name: 'Mail.ru', category: 'verification', source: 'TXT', pattern: txt('mailru-verification:') },

  // Senders authorized in SPF.
  { name: 'Google Workspace', category: 'email_sending', source: 'SPF', pattern: host('_spf.google.com') },
  { name: 'Microsoft 365', category: 'email_sending', source: 'SPF', pattern: host('spf.protection.outlook.com') },
  { name: 'Amazon SES', category: 'email_sending', source: 'SPF', pattern: host('amazonses.com') },
  { name: 'SendGrid', category: 'email_sending', source: 'SPF', pattern: host('sendgrid.net') },
  { name: 'Mailgun', category: 'email_sending', source: 'SPF', pattern: host('mailgun.org') },
  { name: 'Mailchimp', category: 'email_sending', source: 'SPF', pattern: host('servers.mcsv.net') },
  { name: 'Mandrill', category: 'email_sending', source: 'SPF', pattern: host('spf.mandrillapp.com') },
  { name: 'Salesforce', category: 'email_sending', source: 'SPF', pattern: host('_spf.salesforce.com') },
  { name: 'Zendesk', category: 'email_sending', source: 'SPF', pattern: host('mail.zendesk.com') },
  { name: 'HubSpot', category: 'email_sending', source: 'SPF', pattern: /(?:^|\.)(?:hubspotemail\.net|_spf\.hubspot\.com)\.?$/i },
  { name: 'Postmark', category: 'email_sending', source: 'SPF', pattern: host('spf.mtasv.net') },
  { name: 'SparkPost', category: 'email_sending', source: 'SPF', pattern: host('sparkpostmail.com') },
  { name: 'Brevo (Sendinblue)', category: 'email_sending', source: 'SPF', pattern: /(?:^|\.)(?:spf\.sendinblue\.com|spf\.brevo\.com)\.?$/i },
  { name: 'Marketo', category: 'email_sending', source: 'SPF', pattern: host('mktomail.com') },
  { name: 'Zoho Mail', category: 'email_sending', source: 'SPF', pattern: /(?:^|\.)zoho(?:mail)?\.(?:com|eu|in)\.?$/i },
  { name: 'Fastmail', category: 'email_sending', source: 'SPF', pattern: host('spf.messagingengine.com') },
  { name: 'Proton Mail', category: 'email_sending', source: 'SPF', pattern: host('_spf.protonmail.ch') },
  { name: 'iCloud Mail', category: 'email_sending', source: 'SPF', pattern: host('icloud.com') },
  { name: 'Mailjet', category: 'email_sending', source: 'SPF', pattern: host('spf.mailjet.com') },
  { name: 'Freshdesk', category: 'email_sending', source: 'SPF', pattern: host('email.freshdesk.com') },
  { name: 'Elastic Email', category: 'email_sending', source: 'SPF', pattern: host('_spf.elasticemail.com') },

  // Inbound mail services outside the gateway/provider table.
  { name: 'Cloudflare Email Routing', category: 'email_inbound', source: 'MX', pattern: host('mx.cloudflare.net') },
  { name: 'Amazon SES (inbound)', category: 'email_inbound', source: 'MX', pattern: /^inbound-smtp\.[a-z0-9-]+\.amazonaws\.com\.?$/i },
  { name: 'Mailgun (inbound)', category: 'email_inbound', source: 'MX', pattern: host('mailgun.org') },
  { name: 'ImprovMX', category: 'email_inbound', source: 'MX', pattern: host('improvmx.com') },

  // DNS hosting.
  { name: 'Cloudflare DNS', category: 'dns_hosting', source: 'NS', pattern: host('ns.cloudflare.com') },
  { name: 'AWS Route 53', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)awsdns-\d+\.(?:com|net|org|co\.uk)\.?$/i },
  { name: 'Azure DNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)azure-dns\.(?:com|net|org|info)\.?$/i },
  { name: 'Google Cloud DNS', category: 'dns_hosting', source: 'NS', pattern: /^ns-cloud-[a-e]\d\.googledomains\.com\.?$/i },
  { name: 'GoDaddy DNS', category: 'dns_hosting', source: 'NS', pattern: host('domaincontrol.com') },
  { name: 'Namecheap DNS', category: 'dns_hosting', source: 'NS', pattern: host('registrar-servers.com') },
  { name: 'NS1', category: 'dns_hosting', source: 'NS', pattern: host('nsone.net') },
  { name: 'UltraDNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)ultradns\.(?:com|net|org|biz|info|co\.uk)\.?$/i },
  { name: 'Akamai Edge DNS', category: 'dns_hosting', source: 'NS', pattern: host('akam.net') },
  { name: 'DNSimple', category: 'dns_hosting', source: 'NS', pattern: host('dnsimple.com') },
  { name: 'DigitalOcean DNS', category: 'dns_hosting', source: 'NS', pattern: host('digitalocean.com') },
  { name: 'Hetzner DNS', category: 'dns_hosting', source: 'NS', pattern: /(?:^|\.)(?:hetzner\.com|first-ns\.de|second-ns\.de)\.?$/i },
  { name: 'OVHcloud DNS', category: 'dns_hosting', source: 'NS', pattern: host('ovh.net') },
  { name: 'Gandi LiveDNS', category: 'dns_hosting', source: 'NS', pattern: host('gandi.net') },
  { name: 'Vercel DNS', category: 'dns_hosting', source: 'NS', pattern: host('vercel-dns.com') },

  // Web hosting and CDNs from CNAME chains.
  { name: 'Amazon CloudFront', category: 'cdn', source: 'CNAME', pattern: host('cloudfront.net') },
  { name: 'Cloudflare', category: 'cdn', source: 'CNAME', pattern: host('cdn.cloudflare.net') },
  { name: 'Fastly', category: 'cdn', source: 'CNAME', pattern: host('fastly.net') },
  { name: 'Akamai', category: 'cdn', source: 'CNAME', pattern: /(?:^|\.)(?:edgekey|edgesuite|akamaiedge)\.net\.?$/i },
  { name: 'Azure Front Door / CDN', category: 'cdn', source: 'CNAME', pattern: /(?:^|\.)(?:azureedge\.net|azurefd\.net)\.?$/i },
  { name: 'Azure App Service', category: 'web_hosting', source: 'CNAME', pattern: host('azurewebsites.net') },
  { name: 'GitHub Pages', category: 'web_hosting', source: 'CNAME', pattern: host('github.io') },
  { name: 'Netlify', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)netlify\.(?:app|com)\.?$/i },
  { name: 'Vercel', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)vercel(?:-dns\.com|\.app)\.?$/i },
  { name: 'Heroku', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)(?:herokudns\.com|herokuapp\.com)\.?$/i },
  { name: 'Shopify', category: 'web_hosting', source: 'CNAME', pattern: host('myshopify.com') },
  { name: 'Squarespace', category: 'web_hosting', source: 'CNAME', pattern: host('squarespace.com') },
  { name: 'Wix', category: 'web_hosting', source: 'CNAME', pattern: host('wixdns.net') },
  { name: 'WP Engine', category: 'web_hosting', source: 'CNAME', pattern: host('wpengine.com') },
  { name: 'HubSpot CMS', category: 'web_hosting', source: 'CNAME', pattern: /(?:^|\.)hs-sites(?:-eu1)?\.com\.?$/i },

  // Certificate authorities allowed by CAA.
  { name: "Let's Encrypt", category: 'certificate_authority', source: 'CAA', pattern: /^letsencrypt\.org\b/i },
  { name: 'DigiCert', category: 'certificate_authority', source: 'CAA', pattern: /^digicert\.com\b/i },
  { name: 'Sectigo', category: 'certificate_authority', source: 'CAA', pattern: /^(?:sectigo|comodoca)\.com\b/i },
  { name: 'Google Trust Services', category: 'certificate_authority', source: 'CAA', pattern: /^pki\.goog\b/i },
  { name: 'Amazon Trust Services', category: 'certificate_authority', source: 'CAA', pattern: /^(?:amazon(?:trust)?\.com|awstrust\.com)\b/i },
  { name: 'GlobalSign', category: 'certificate_authority', source: 'CAA', pattern: /^globalsign\.com\b/i },
];
