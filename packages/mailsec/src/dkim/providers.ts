// DKIM key -> sending provider. A CNAME target is strong evidence (the provider hosts the key);
// a selector name alone is a hint, since anyone may pick "s1" or "k1". Ordered; first match wins.

export interface DkimProviderRow {
  provider: string;
  pattern: RegExp;
}

function host(suffix: string): RegExp {
  return new RegExp(`(?:^|\\.)${suffix.replace(/\./g, '\\.')}\\.?$`, 'i');
}

/** Matched against every name in the selector's CNAME chain. */
export const DKIM_CNAME_PROVIDERS: readonly DkimProviderRow[] = [
  { provider: 'Microsoft 365', pattern: host('onmicrosoft.com') },
  { provider: 'Amazon SES', pattern: host('dkim.amazonses.com') },
  { provider: 'SendGrid', pattern: host('sendgrid.net') },
  { provider: 'Mailchimp', pattern: host('dkim.mcsv.net') },
  { provider: 'Mandrill', pattern: host('mandrillapp.com') },
  { provider: 'Zendesk', pattern: host('zendesk.com') },
  { provider: 'HubSpot', pattern: host('hubspotemail.net') },
  { provider: 'Campaign Monitor', pattern: host('createsend.com') },
  { provider: 'Postmark', pattern: host('mtasv.net') },
  { provider: 'iCloud Mail', pattern: host('icloudmailadmin.com') },
  { provider: 'Proton Mail', pattern: /(?:^|\.)(?:domains\.proton\.ch|protonmail\.ch)\.?$/i },
  { provider: 'Fastmail', pattern: /(?:^|\.)(?:fmhosted\.com|messagingengine\.com)\.?$/i },
  { provider: 'Mailgun', pattern: host('mailgun.org') },
  { provider: 'SparkPost', pattern: host('sparkpostmail.com') },
  { provider: 'Klaviyo', pattern: host('klaviyo.com') },
  { provider: 'Marketo', pattern: host('mktoweb.com') },
  { provider: 'Brevo', pattern: /(?:^|\.)(?:sendinblue\.com|brevo\.com)\.?$/i },
  { provider: 'Mailjet', pattern: host('mailjet.com') },
  { provider: 'MailerSend', pattern: host('mlsend.com') },
  { provider: 'AWeber', pattern: host('aweber.com') },
  { provider: 'Salesforce Marketing Cloud', pattern: host('exacttarget.com') },
  { provider: 'Google Workspace', pattern: host('googlehosted.com') },
  { provider: 'Zoho Mail', pattern: /(?:^|\.)zoho(?:mail)?\.(?:com|eu|in)\.?$/i },
  { provider: 'Migadu', pattern: host('migadu.com') },
  { provider: 'Purelymail', pattern: host('purelymail.com') },
  { provider: 'Intercom', pattern: host('intercom-mail.com') },
  { provider: 'Freshworks', pattern: host('freshemail.io') },
  { provider: 'Mimecast', pattern: host('mimecast.com') },
];

/** Matched against the selector when no CNAME names the provider. */
export const DKIM_SELECTOR_PROVIDERS: readonly DkimProviderRow[] = [
  { provider: 'Google Workspace', pattern: /^google(?:2048)?$/ },
  { provider: 'Microsoft 365', pattern: /^selector[12]$/ },
  { provider: 'Mailchimp', pattern: /^k[123]$/ },
  { provider: 'Mandrill', pattern: /^(?:mandrill|mte[12])$/ },
  { provider: 'SendGrid', pattern: /^(?:s[12]|smtpapi|sendgrid)$/ },
  { provider: 'Postmark', pattern: /^(?:pm|\d{14}pm)$/ },
  { provider: 'Mailgun', pattern: /^(?:mailo|pic|krs)$/ },
  { provider: 'Zendesk', pattern: /^zendesk[12]$/ },
  { provider: 'HubSpot', pattern: /^hs[12](?:-\d+)?$/ },
  { provider: 'Campaign Monitor', pattern: /^cm$/ },
  { provider: 'Constant Contact', pattern: /^ctct[12]$/ },
  { provider: 'iCloud Mail', pattern: /^sig1$/ },
  { provider: 'Proton Mail', pattern: /^protonmail[23]?$/ },
  { provider: 'Fastmail', pattern: /^(?:fm[123]|mesmtp)$/ },
  { provider: 'Zoho Mail', pattern: /^(?:zmail|zoho)$/ },
  { provider: 'Mailjet', pattern: /^mailjet$/ },
  { provider: 'Everlytic', pattern: /^everlytickey[12]$/ },
  { provider: 'Salesforce Pardot', pattern: /^200608$/ },
  { provider: 'Klaviyo', pattern: /^kl2?$/ },
  { provider: 'AWeber', pattern: /^aweber_key_[abc]$/ },
  { provider: 'MailerSend', pattern: /^mlsend2?$/ },
  { provider: 'MailerLite', pattern: /^(?:ml2?|litesrv)$/ },
  { provider: 'Brevo', pattern: /^(?:brevo[12]|sendinblue)$/ },
  { provider: 'Yahoo', pattern: /^s(?:1024|2048)$/ },
  { provider: 'Purelymail', pattern: /^purelymail[123]$/ },
  { provider: 'Gandi Mail', pattern: /^gm[123]$/ },
  { provider: 'IONOS', pattern: /^s[12]-ionos$/ },
  { provider: 'Resend', pattern: /^resend$/ },
  { provider: 'Intercom', pattern: /^intercom$/ },
  { provider: 'Freshworks', pattern: /^(?:fd2?|fdm|freshdesk)$/ },
  { provider: 'Amazon SES', pattern: /^amazonses$/ },
  { provider: 'Mimecast', pattern: /^mimecast\d*$/ },
];

export interface DkimProviderMatch {
  provider: string;
  /** cname: the key is hosted by the provider; selector: guessed from the selector name only. */
  evidence: 'cname' | 'selector';
}

export function dkimProvider(selector: string, cnames: readonly string[]): DkimProviderMatch | null {
  for (const row of DKIM_CNAME_PROVIDERS) if (cnames.some((c) => row.pattern.test(c))) return { provider: row.provider, evidence: 'cname' };
  const row = DKIM_SELECTOR_PROVIDERS.find((r) => r.pattern.test(selector.toLowerCase()));
  return row ? { provider: row.provider, evidence: 'selector' } : null;
}
