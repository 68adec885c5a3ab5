// DKIM selectors swept by dkim_discover. DKIM keys live at <selector>._domainkey.<domain> and a
// selector can be any label, so discovery can only try the names senders commonly use. Grouped by
// who uses them; order matters only for reading. Selectors made of per-account tokens (Amazon SES
// Easy DKIM's three random tokens, Postmark's dated "20xxxxxxxxxxxxpm", HubSpot's "hs1-<portal id>")
// cannot be guessed and are not listed: those keys are found only through a CNAME-bearing selector
// or by the sender telling you.
export const DKIM_SELECTORS: readonly string[] = [
  // Mailbox providers
  'google', 'google2048', 'gmail', 'gsuite', 'googleapps', '20161025', '20210112', '20221208', '20230601', // Google Workspace / gmail.com
  'selector1', 'selector2', 'selector3', 'office365', 'o365', 'microsoft', 'outlook', 'exchange', // Microsoft 365
  'protonmail', 'protonmail2', 'protonmail3', // Proton Mail
  'fm1', 'fm2', 'fm3', 'mesmtp', // Fastmail
  'sig1', // iCloud Mail (custom domains)
  'zmail', 'zoho', 'zohomail', // Zoho Mail
  's1024', 's2048', 'yahoo', // Yahoo
  'mail', 'yandex', // Yandex
  'mailru', // Mail.ru
  'key1', 'key2', 'key3', 'migadu', // Migadu
  'purelymail1', 'purelymail2', 'purelymail3', // Purelymail
  'gm1', 'gm2', 'gm3', // Gandi Mail
  's1-ionos', 's2-ionos', 's42582890', // IONOS
  'titan', 'titan1', // Titan
  'x', // DirectAdmin, MXroute
  'mxvault',
  // Email service providers and marketing platforms
  'k1', 'k2', 'k3', 'mc', 'mcdkim', // Mailchimp
  'mandrill', 'mte1', 'mte2', // Mailchimp Transactional (Mandrill)
  's1', 's2', 'sendgrid', 'smtpapi', 'em', 'em1', 'em2', // SendGrid (Twilio)
  'pm', 'postmark', // Postmark
  'mailo', 'pic', 'krs', 'mg', 'mailgun', 'mx', // Mailgun
  'amazonses', 'ses', 'aws', // Amazon SES (BYODKIM and legacy names)
  'sparkpost', 'scph0118', 'scph0418', 'scph1220', // SparkPost
  'mailjet', 'mj', // Mailjet
  'brevo1', 'brevo2', 'sendinblue', 'sib', // Brevo
  'cm', 'createsend', // Campaign Monitor
  'ctct1', 'ctct2', // Constant Contact
  'hs1', 'hs2', 'hubspot', // HubSpot
  'kl', 'kl2', 'klaviyo', // Klaviyo
  'ml', 'ml2', 'mlsend', 'mlsend2', 'litesrv', 'mailerlite', 'mailersend', // MailerLite / MailerSend
  'aweber_key_a', 'aweber_key_b', 'aweber_key_c', // AWeber
  'everlytickey1', 'everlytickey2', // Everlytic
  'dk', 'dk1', 'dk2', 'activecampaign', // ActiveCampaign and generic
  'getresponse', 'gr', 'convertkit', 'ck', 'drip', 'iterable', 'braze', 'customerio', 'cio', 'sendpulse', 'omnisend',
  'resend', 'loops', 'smtp2go', 'smtpcom', 'socketlabs', 'api', 'elastic', 'elasticemail', 'mailchannels', 'turbosmtp', 'pepipost', 'netcore',
  'm1', 'mkto', 'marketo', // Marketo
  '200608', 'pardot', // Salesforce Pardot
  'sf1', 'sf2', 'salesforce', 'sfdc', 'et', 'exacttarget', // Salesforce / Marketing Cloud
  'zendesk1', 'zendesk2', // Zendesk
  'fd', 'fd2', 'fdm', 'freshdesk', 'freshworks', // Freshworks
  'intercom', 'ic', // Intercom
  'helpscout', 'hs', 'gorgias', 'front', 'kustomer',
  'shopify', 'shopify2', 'squarespace', 'wix', 'netsuite', 'ns1', 'ns2', 'zoom', 'qualtrics', 'outreach', 'salesloft', 'mixmax', 'lemlist', 'yesware',
  'mimecast', 'proofpoint', 'pp', 'barracuda', 'cisco', 'ironport', 'sophos', 'trendmicro', // gateways that sign outbound mail
  'mailchimp', 'mailpoet', 'benchmark', 'moosend', 'emma', 'acoustic', 'silverpop', 'cheetah', 'epsilon', 'sailthru', 'cordial', 'attentive', 'postscript',
  // Generic names from hosting panels, OpenDKIM/rspamd/Exim guides and habit
  'default', 'default1', 'default2', 'dkim', 'dkim1', 'dkim2', 'dkim3', 'dkim1024', 'dkim2048', 'dkimkey', 'domainkey', 'domk',
  'selector', 'sel', 'sel1', 'sel2', 'sig', 'sig2', 'key', 'k', 's', 'm', 'a', 'b', 'd', 'k4', 'k5', 's3', 's4', 's5', 's10',
  'smtp', 'smtp1', 'smtp2', 'smtpout', 'mail1', 'mail2', 'mail3', 'mailer', 'mailkey', 'email', 'mx1', 'mx2', 'mta', 'mta1', 'mta2',
  'relay', 'out', 'outbound', 'server', 'server1', 'server2', 'exim', 'postfix', 'opendkim', 'rspamd', 'amavis', 'plesk', 'cpanel',
  'primary', 'secondary', 'main', 'prod', 'production', 'staging', 'test', 'beta', 'new', 'old', 'backup',
  'newsletter', 'news', 'marketing', 'bulk', 'info', 'support', 'noreply', 'transactional', 'notifications', 'alerts', 'billing', 'campaign',
  'rsa', 'rsa1', 'rsa2', 'rsa2048', 'ed25519', 'ed', 'eddsa',
  '2015', '2016', '2017', '2018', '2019', '2020', '2021', '2022', '2023', '2024', '2025', '2026',
  'dkim2019', 'dkim2020', 'dkim2021', 'dkim2022', 'dkim2023', 'dkim2024', 'dkim2025',
];
