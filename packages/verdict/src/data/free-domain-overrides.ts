// Corrections to the free-mail list from the email-providers package.

/** Free or consumer mailbox domains the package misses. */
export const EXTRA_FREE_DOMAINS: readonly string[] = [
  'tutanota.com', 'tutanota.de', 'tuta.io', 'tuta.com', 'tutamail.com', 'keemail.me',
  'protonmail.com', 'protonmail.ch', 'proton.me', 'pm.me',
  'outlook.com', 'hotmail.com', 'live.com', 'msn.com',
  'gmail.com', 'googlemail.com', 'yahoo.com', 'ymail.com', 'aol.com', 'icloud.com', 'me.com', 'mac.com',
];

/**
 * Entries of the package that are websites or reserved names rather than mailbox providers
 * people sign up with; flagging them "free" would mislabel company addresses.
 */
export const NOT_FREE_DOMAINS: readonly string[] = [
  'example.com', 'example.org', 'example.net', 'test.com', 'facebook.com', 'alibaba.com',
  'about.com', 'go.com', 'discovery.com', 'space.com', 'medscape.com', 'ancestry.com',
  'techspot.com', 'law.com', 'berlin.de', 'nus.edu.sg', 'indiatimes.com',
];
