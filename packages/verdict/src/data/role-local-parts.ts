// Role (shared, non-personal) mailbox names. Compared after lowercasing, dropping the +tag and
// removing separators and digits, so "no-reply", "no_reply" and "noreply2" all match "noreply".
// A local part is also a role address when it starts with one of these words and every other
// word is a qualifier below ("sales.team", "info-uk", "support.emea"): see roles.ts.
// Ordered by family for reading; order does not affect matching.
export const ROLE_LOCAL_PARTS: readonly string[] = [
  // sales and general enquiries
  'sales', 'info', 'information', 'contact', 'contactus', 'hello', 'hi', 'enquiries', 'enquiry',
  'inquiries', 'inquiry', 'office', 'team', 'mail', 'email', 'general', 'reception', 'frontdesk',
  'business', 'partners', 'partnerships', 'orders', 'order', 'bookings', 'booking', 'reservations',
  'quotes', 'shop', 'store',
  // support and service
  'support', 'help', 'helpdesk', 'service', 'services', 'customerservice', 'customercare',
  'customersupport', 'care', 'feedback', 'techsupport',
  // machines and no-reply senders
  'noreply', 'donotreply', 'dontreply', 'mailerdaemon', 'bounce', 'bounces', 'notifications',
  'notification', 'alerts', 'newsletter', 'news', 'updates', 'system', 'root', 'daemon',
  // RFC 2142 and operations
  'postmaster', 'hostmaster', 'webmaster', 'abuse', 'security', 'noc', 'admin', 'administrator',
  'sysadmin', 'it', 'devops', 'ops', 'www', 'ftp', 'usenet', 'uucp',
  // money
  'billing', 'accounts', 'accounting', 'accountspayable', 'accountsreceivable', 'invoices',
  'invoice', 'payments', 'finance', 'payroll', 'purchasing', 'procurement',
  // people and legal
  'hr', 'humanresources', 'jobs', 'careers', 'recruiting', 'recruitment', 'talent', 'hiring',
  'legal', 'compliance', 'privacy', 'gdpr', 'dpo', 'dataprotection',
  // outward facing
  'marketing', 'press', 'media', 'pr', 'social', 'events', 'community', 'investors', 'ir',
  'editor', 'editorial', 'webinar', 'partner',
];

/** Words that may follow a role word without making the address personal. */
export const ROLE_QUALIFIERS: readonly string[] = [
  'team', 'dept', 'department', 'desk', 'group', 'office', 'hq', 'global', 'intl', 'international',
  'emea', 'apac', 'amer', 'latam', 'eu', 'us', 'usa', 'uk', 'de', 'fr', 'es', 'it', 'nl', 'ca',
  'au', 'in', 'jp', 'cn', 'br', 'mx', 'na', 'north', 'south', 'east', 'west', 'central', 'local',
  'main', 'general', 'inbox', 'mail', 'box', 'online', 'web', 'line', 'center', 'centre', 'hub',
  'reply', 'request', 'requests', 'only', 'internal', 'external', 'all', 'staff', 'dev', 'test',
];
