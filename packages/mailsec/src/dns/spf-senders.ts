// SPF include -> sending service: who a domain authorizes to send its mail, read from the
// include:/redirect= targets of its SPF record. One row per vendor, each with the vendor's own
// documentation that names the include (`doc`), so a row can be checked and kept current.
// Ordered; every matching row is reported once. TECHNOLOGY_TABLE takes its SPF rows from here.
//
// Patterns match a whole label suffix, case-insensitively ("_spf.google.com" matches itself and
// any name under it, never "x_spf.google.com" or "_spf.google.com.evil.example").

import { hostSuffix as host } from './host-pattern.ts';

export interface SpfSenderRow {
  name: string;
  pattern: RegExp;
  /** Where the vendor documents this include: a URL or the title of its own documentation. */
  doc: string;
}

export const SPF_SENDERS: readonly SpfSenderRow[] = [
  { name: 'Google Workspace', pattern: host('_spf.google.com'), doc: 'Google Workspace Admin Help: "Set up SPF" (include:_spf.google.com)' },
  { name: 'Microsoft 365', pattern: host('spf.protection.outlook.com'), doc: 'https://learn.microsoft.com/en-us/defender-office-365/email-authentication-spf-configure' },
  { name: 'Amazon SES', pattern: host('amazonses.com'), doc: 'https://docs.aws.amazon.com/ses/latest/dg/send-email-authentication-spf.html' },
  { name: 'SendGrid', pattern: host('sendgrid.net'), doc: 'Twilio SendGrid docs: "SPF Records Explained" (include:sendgrid.net)' },
  { name: 'Mailgun', pattern: host('mailgun.org'), doc: 'Mailgun docs: "Domain verification setup" (include:mailgun.org)' },
  { name: 'Mailchimp', pattern: host('servers.mcsv.net'), doc: 'Mailchimp Help: "Set up email domain authentication" (include:servers.mcsv.net)' },
  { name: 'Mandrill', pattern: host('spf.mandrillapp.com'), doc: 'Mailchimp Transactional docs: "Authentication and Sender Identity" (include:spf.mandrillapp.com)' },
  { name: 'Salesforce', pattern: host('_spf.salesforce.com'), doc: 'Salesforce Help: "Set Up SPF for Email Sent from Salesforce" (include:_spf.salesforce.com)' },
  { name: 'Salesforce Marketing Cloud', pattern: host('cust-spf.exacttarget.com'), doc: 'Salesforce Help: "Sender Authentication Package" SPF (include:cust-spf.exacttarget.com)' },
  { name: 'Zendesk', pattern: host('mail.zendesk.com'), doc: 'Zendesk Help: "Allowing Zendesk to send email on behalf of your email domain" (include:mail.zendesk.com)' },
  { name: 'HubSpot', pattern: /(?:^|\.)(?:hubspotemail\.net|_spf\.hubspot\.com)\.?$/i, doc: 'HubSpot Knowledge Base: "Connect your email sending domain" (SPF)' },
  { name: 'Postmark', pattern: host('spf.mtasv.net'), doc: 'Postmark docs: "SPF" (include:spf.mtasv.net)' },
  { name: 'SparkPost', pattern: host('sparkpostmail.com'), doc: 'SparkPost docs: "Sending domain verification" (include:sparkpostmail.com)' },
  { name: 'Brevo (Sendinblue)', pattern: /(?:^|\.)(?:spf\.sendinblue\.com|spf\.brevo\.com)\.?$/i, doc: 'Brevo Help Center: "Authenticate your domain" (include:spf.brevo.com)' },
  { name: 'Marketo', pattern: host('mktomail.com'), doc: 'Adobe Marketo Engage docs: "Set up SPF and DKIM" (include:mktomail.com)' },
  { name: 'Zoho Mail', pattern: /(?:^|\.)zoho(?:mail)?\.(?:com|eu|in)\.?$/i, doc: 'Zoho Mail Help: "SPF configuration" (include:zoho.com / zoho.eu / zoho.in)' },
  { name: 'Fastmail', pattern: host('spf.messagingengine.com'), doc: 'Fastmail Help: "Manual DNS configuration" (include:spf.messagingengine.com)' },
  { name: 'Proton Mail', pattern: host('_spf.protonmail.ch'), doc: 'Proton Support: "How to set up a custom domain" SPF (include:_spf.protonmail.ch)' },
  { name: 'iCloud Mail', pattern: host('icloud.com'), doc: 'Apple Support: "Set up a custom email domain with iCloud Mail" (include:icloud.com)' },
  { name: 'Mailjet', pattern: host('spf.mailjet.com'), doc: 'Mailjet docs: "How to set up SPF" (include:spf.mailjet.com)' },
  { name: 'Freshdesk', pattern: host('email.freshdesk.com'), doc: 'Freshdesk Support: "Setting up SPF records" (include:email.freshdesk.com)' },
  { name: 'Elastic Email', pattern: host('_spf.elasticemail.com'), doc: 'Elastic Email Help: "How to verify your domain" (include:_spf.elasticemail.com)' },
  { name: 'Mimecast', pattern: host('_netblocks.mimecast.com'), doc: 'Mimecast Community: "Configuring SPF records" (include:<region>._netblocks.mimecast.com)' },
  { name: 'Constant Contact', pattern: host('spf.constantcontact.com'), doc: 'Constant Contact Knowledge Base: "Add an SPF record" (include:spf.constantcontact.com)' },
  { name: 'Atlassian', pattern: host('_spf.atlassian.net'), doc: 'Atlassian Support: "Configure your DNS for outgoing email" (include:_spf.atlassian.net)' },
  { name: 'Shopify', pattern: host('shops.shopify.com'), doc: 'Shopify Help Center: "Email authentication" (include:shops.shopify.com)' },
];

/** The vendor a single include/redirect target belongs to, or null. */
export function spfSenderFor(target: string, table: readonly SpfSenderRow[] = SPF_SENDERS): SpfSenderRow | null {
  return table.find((row) => row.pattern.test(target)) ?? null;
}
