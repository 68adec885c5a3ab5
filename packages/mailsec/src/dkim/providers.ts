// DKIM key -> sending provider. A CNAME target is strong evidence (the provider hosts the key);
// a selector name alone is a hint, since anyone may pick "s1" or "k1". Ordered; first match wins.
// Every row names the vendor's documentation of the selector or key host (`doc`).

import { hostSuffix as host } from '../dns/host-pattern.ts';

export interface DkimProviderRow {
  provider: string;
  pattern: RegExp;
  /** Where the vendor documents this key name or host: a URL or the title of its own documentation. */
  doc: string;
}

/** Matched against every name in the selector's CNAME chain. */
export const DKIM_CNAME_PROVIDERS: readonly DkimProviderRow[] = [
  { provider: 'Microsoft 365', pattern: host('onmicrosoft.com'), doc: 'https://learn.microsoft.com/en-us/defender-office-365/email-authentication-dkim-configure (selector1/selector2 CNAME to *.onmicrosoft.com)' },
  { provider: 'Amazon SES', pattern: host('dkim.amazonses.com'), doc: 'https://docs.aws.amazon.com/ses/latest/dg/send-email-authentication-dkim-easy.html (CNAME to *.dkim.amazonses.com)' },
  { provider: 'SendGrid', pattern: host('sendgrid.net'), doc: 'Twilio SendGrid docs: "How to set up domain authentication" (s1/s2 CNAME to *.sendgrid.net)' },
  { provider: 'Mailchimp', pattern: host('dkim.mcsv.net'), doc: 'Mailchimp Help: "Set up email domain authentication" (k1 CNAME to dkim.mcsv.net)' },
  { provider: 'Mandrill', pattern: host('mandrillapp.com'), doc: 'Mailchimp Transactional docs: "Authentication and Sender Identity" (mandrill._domainkey, mandrillapp.com)' },
  { provider: 'Zendesk', pattern: host('zendesk.com'), doc: 'Zendesk Help: "Digitally signing your email with DKIM or DMARC" (zendesk1/zendesk2 CNAME to *.zendesk.com)' },
  { provider: 'HubSpot', pattern: host('hubspotemail.net'), doc: 'HubSpot Knowledge Base: "Connect your email sending domain" (hs1/hs2 CNAME to *.hubspotemail.net)' },
  { provider: 'Campaign Monitor', pattern: host('createsend.com'), doc: 'Campaign Monitor Help: "Authenticate your emails" (cm._domainkey CNAME to *.createsend.com)' },
  { provider: 'Postmark', pattern: host('mtasv.net'), doc: 'Postmark docs: "DKIM" (CNAME to *.mtasv.net for Postmark-hosted keys)' },
  { provider: 'iCloud Mail', pattern: host('icloudmailadmin.com'), doc: 'Apple Support: "Set up a custom email domain with iCloud Mail" (sig1 CNAME to *.icloudmailadmin.com)' },
  { provider: 'Proton Mail', pattern: /(?:^|\.)(?:domains\.proton\.ch|protonmail\.ch)\.?$/i, doc: 'Proton Support: "How to set up a custom domain" (protonmail/protonmail2/protonmail3 CNAME to *.domains.proton.ch)' },
  { provider: 'Fastmail', pattern: /(?:^|\.)(?:fmhosted\.com|messagingengine\.com)\.?$/i, doc: 'Fastmail Help: "Manual DNS configuration" (fm1/fm2/fm3 CNAME to *.fmhosted.com)' },
  { provider: 'Mailgun', pattern: host('mailgun.org'), doc: 'Mailgun docs: "Domain verification setup" (DKIM keys under mailgun.org)' },
  { provider: 'SparkPost', pattern: host('sparkpostmail.com'), doc: 'SparkPost docs: "Sending domain verification" (DKIM keys under sparkpostmail.com)' },
  { provider: 'Klaviyo', pattern: host('klaviyo.com'), doc: 'Klaviyo Help Center: "How to set up a branded sending domain" (kl/kl2 CNAME to *.klaviyo.com)' },
  { provider: 'Marketo', pattern: host('mktoweb.com'), doc: 'Adobe Marketo Engage docs: "Set up a custom DKIM signature" (m1 CNAME to *.mktoweb.com)' },
  { provider: 'Brevo', pattern: /(?:^|\.)(?:sendinblue\.com|brevo\.com)\.?$/i, doc: 'Brevo Help Center: "Authenticate your domain" (brevo1/brevo2 CNAME to *.brevo.com)' },
  { provider: 'Mailjet', pattern: host('mailjet.com'), doc: 'Mailjet docs: "How to set up DKIM" (mailjet._domainkey)' },
  { provider: 'MailerSend', pattern: host('mlsend.com'), doc: 'MailerSend docs: "Domain verification" (mlsend/mlsend2 CNAME to *.mlsend.com)' },
  { provider: 'AWeber', pattern: host('aweber.com'), doc: 'AWeber Knowledge Base: "Authenticating your domain" (aweber_key_a/b/c CNAME to *.aweber.com)' },
  { provider: 'Salesforce Marketing Cloud', pattern: host('exacttarget.com'), doc: 'Salesforce Help: "Sender Authentication Package" (DKIM under exacttarget.com)' },
  { provider: 'Google Workspace', pattern: host('googlehosted.com'), doc: 'Google Workspace Admin Help: "Set up DKIM" (google._domainkey)' },
  { provider: 'Zoho Mail', pattern: /(?:^|\.)zoho(?:mail)?\.(?:com|eu|in)\.?$/i, doc: 'Zoho Mail Help: "DKIM configuration" (keys under zoho.com / zoho.eu / zoho.in)' },
  { provider: 'Migadu', pattern: host('migadu.com'), doc: 'Migadu docs: "DNS configuration" (key1/key2/key3 CNAME to *.migadu.com)' },
  { provider: 'Purelymail', pattern: host('purelymail.com'), doc: 'Purelymail docs: "Custom domain DNS" (purelymail1/2/3 CNAME to *.purelymail.com)' },
  { provider: 'Intercom', pattern: host('intercom-mail.com'), doc: 'Intercom Help: "Set up DKIM and SPF for custom email addresses" (intercom._domainkey, intercom-mail.com)' },
  { provider: 'Freshworks', pattern: host('freshemail.io'), doc: 'Freshdesk Support: "Setting up DKIM" (fd/fd2 CNAME to *.freshemail.io)' },
  { provider: 'Mimecast', pattern: host('mimecast.com'), doc: 'Mimecast Community: "DKIM signing of outbound mail" (mimecast._domainkey)' },
];

/** Matched against the selector when no CNAME names the provider. */
export const DKIM_SELECTOR_PROVIDERS: readonly DkimProviderRow[] = [
  { provider: 'Google Workspace', pattern: /^google(?:2048)?$/, doc: 'Google Workspace Admin Help: "Set up DKIM" (default selector google)' },
  { provider: 'Microsoft 365', pattern: /^selector[12]$/, doc: 'https://learn.microsoft.com/en-us/defender-office-365/email-authentication-dkim-configure (selectors selector1, selector2)' },
  { provider: 'Mailchimp', pattern: /^k[123]$/, doc: 'Mailchimp Help: "Set up email domain authentication" (selectors k2, k3)' },
  { provider: 'Mandrill', pattern: /^(?:mandrill|mte[12])$/, doc: 'Mailchimp Transactional docs: "Authentication and Sender Identity" (selectors mandrill, mte1)' },
  { provider: 'SendGrid', pattern: /^(?:s[12]|smtpapi|sendgrid)$/, doc: 'Twilio SendGrid docs: "How to set up domain authentication" (selectors s1, s2)' },
  { provider: 'Postmark', pattern: /^(?:pm|\d{14}pm)$/, doc: 'Postmark docs: "DKIM" (selectors pm, <date>pm)' },
  { provider: 'Mailgun', pattern: /^(?:mailo|pic|krs)$/, doc: 'Mailgun docs: "Domain verification setup" (selectors such as mailo, pic, krs)' },
  { provider: 'Zendesk', pattern: /^zendesk[12]$/, doc: 'Zendesk Help: "Digitally signing your email with DKIM or DMARC" (selectors zendesk1, zendesk2)' },
  { provider: 'HubSpot', pattern: /^hs[12](?:-\d+)?$/, doc: 'HubSpot Knowledge Base: "Connect your email sending domain" (selectors hs1, hs2)' },
  { provider: 'Campaign Monitor', pattern: /^cm$/, doc: 'Campaign Monitor Help: "Authenticate your emails" (selector cm)' },
  { provider: 'Constant Contact', pattern: /^ctct[12]$/, doc: 'Constant Contact Knowledge Base: "Self-authenticate with DKIM" (selectors ctct1, ctct2)' },
  { provider: 'iCloud Mail', pattern: /^sig1$/, doc: 'Apple Support: "Set up a custom email domain with iCloud Mail" (selector sig1)' },
  { provider: 'Proton Mail', pattern: /^protonmail[23]?$/, doc: 'Proton Support: "How to set up a custom domain" (selectors protonmail, protonmail2, protonmail3)' },
  { provider: 'Fastmail', pattern: /^(?:fm[123]|mesmtp)$/, doc: 'Fastmail Help: "Manual DNS configuration" (selectors fm1, fm2, fm3)' },
  { provider: 'Zoho Mail', pattern: /^(?:zmail|zoho)$/, doc: 'Zoho Mail Help: "DKIM configuration" (selector chosen in the admin console, e.g. zmail)' },
  { provider: 'Mailjet', pattern: /^mailjet$/, doc: 'Mailjet docs: "How to set up DKIM" (selector mailjet)' },
  { provider: 'Everlytic', pattern: /^everlytickey[12]$/, doc: 'Everlytic Help: "Domain authentication" (selectors everlytickey1, everlytickey2)' },
  { provider: 'Salesforce Pardot', pattern: /^200608$/, doc: 'Salesforce Help: "Account Engagement email authentication" (selector 200608)' },
  { provider: 'Klaviyo', pattern: /^kl2?$/, doc: 'Klaviyo Help Center: "How to set up a branded sending domain" (selectors kl, kl2)' },
  { provider: 'AWeber', pattern: /^aweber_key_[abc]$/, doc: 'AWeber Knowledge Base: "Authenticating your domain" (selectors aweber_key_a/b/c)' },
  { provider: 'MailerSend', pattern: /^mlsend2?$/, doc: 'MailerSend docs: "Domain verification" (selectors mlsend, mlsend2)' },
  { provider: 'MailerLite', pattern: /^(?:ml2?|litesrv)$/, doc: 'MailerLite Help: "Domain authentication" (selectors ml, ml2, litesrv)' },
  { provider: 'Brevo', pattern: /^(?:brevo[12]|sendinblue)$/, doc: 'Brevo Help Center: "Authenticate your domain" (selectors brevo1, brevo2)' },
  { provider: 'Yahoo', pattern: /^s(?:1024|2048)$/, doc: 'Yahoo Sender Hub: DKIM signing of yahoo.com mail (selectors s1024, s2048)' },
  { provider: 'Purelymail', pattern: /^purelymail[123]$/, doc: 'Purelymail docs: "Custom domain DNS" (selectors purelymail1/2/3)' },
  { provider: 'Gandi Mail', pattern: /^gm[123]$/, doc: 'Gandi docs: "Gandi Mail DKIM" (selectors gm1, gm2, gm3)' },
  { provider: 'IONOS', pattern: /^s[12]-ionos$/, doc: 'IONOS Help: "Setting up DKIM" (selectors s1-ionos, s2-ionos)' },
  { provider: 'Resend', pattern: /^resend$/, doc: 'Resend docs: "Managing domains" (selector resend)' },
  { provider: 'Intercom', pattern: /^intercom$/, doc: 'Intercom Help: "Set up DKIM and SPF for custom email addresses" (selector intercom)' },
  { provider: 'Freshworks', pattern: /^(?:fd2?|fdm|freshdesk)$/, doc: 'Freshdesk Support: "Setting up DKIM" (selectors fd, fd2)' },
  { provider: 'Amazon SES', pattern: /^amazonses$/, doc: 'https://docs.aws.amazon.com/ses/latest/dg/send-email-authentication-dkim-bring-your-own.html (a selector of your choice; amazonses by habit)' },
  { provider: 'Mimecast', pattern: /^mimecast\d*$/, doc: 'Mimecast Community: "DKIM signing of outbound mail" (selector mimecast<date>)' },
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
