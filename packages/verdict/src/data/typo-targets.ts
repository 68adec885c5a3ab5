// Popular mail domains that typo suggestions point to, most popular first: when two targets are
// equally close, the earlier one wins. A domain listed here is never itself "corrected".
export const TYPO_TARGETS: readonly string[] = [
  'gmail.com', 'yahoo.com', 'hotmail.com', 'outlook.com', 'icloud.com', 'aol.com', 'live.com',
  'msn.com', 'googlemail.com', 'protonmail.com', 'proton.me', 'ymail.com', 'rocketmail.com',
  'me.com', 'mac.com', 'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'bellsouth.net',
  'charter.net', 'cox.net', 'earthlink.net', 'optonline.net', 'hotmail.co.uk', 'yahoo.co.uk',
  'btinternet.com', 'sky.com', 'virginmedia.com', 'ntlworld.com', 'hotmail.fr', 'yahoo.fr',
  'orange.fr', 'wanadoo.fr', 'laposte.net', 'free.fr', 'sfr.fr', 'gmx.de', 'gmx.net', 'gmx.com',
  'web.de', 't-online.de', 'freenet.de', 'hotmail.de', 'yahoo.de', 'libero.it', 'virgilio.it',
  'hotmail.it', 'tiscali.it', 'yahoo.es', 'hotmail.es', 'telefonica.net', 'mail.ru', 'yandex.ru',
  'yandex.com', 'rambler.ru', 'bk.ru', 'list.ru', 'inbox.ru', 'qq.com', '163.com', '126.com',
  'sina.com', 'naver.com', 'hanmail.net', 'daum.net', 'yahoo.co.jp', 'rediffmail.com',
  'yahoo.co.in', 'uol.com.br', 'bol.com.br', 'terra.com.br', 'yahoo.com.br', 'hotmail.com.br',
  'shaw.ca', 'rogers.com', 'sympatico.ca', 'bigpond.com', 'optusnet.com.au', 'xtra.co.nz',
  'zoho.com', 'fastmail.com', 'tutanota.com', 'hey.com', 'mail.com', 'email.com', 'inbox.com',
  'seznam.cz', 'wp.pl', 'o2.pl', 'interia.pl', 'onet.pl', 'ziggo.nl', 'kpnmail.nl', 'telenet.be',
  'skynet.be', 'bluewin.ch', 'gmx.ch', 'gmx.at', 'aon.at',
];

/**
 * Real domains that sit close to a target but are their own mail domains (or well-known
 * companies): never suggest a correction for them.
 */
export const KNOWN_LOOKALIKES: readonly string[] = [
  'mail.com', 'email.com', 'gmx.at', 'gmx.ch', 'ymail.com', 'outlook.de',
  'outlook.fr', 'outlook.es', 'outlook.it', 'yahoo.ca', 'yahoo.in', 'yahoo.it', 'yahoo.com.au',
  'live.co.uk', 'live.fr', 'live.de', 'live.nl', 'live.ca', 'live.it', 'hotmail.ca', 'hotmail.nl',
  'hotmail.be', 'aol.co.uk', 'aol.de', 'aol.fr', 'walla.com', 'netzero.net', 'juno.com',
  'cloud.com', 'aon.com', 'life.com', 'love.com', 'hotelmail.com',
  // independent providers on the free-mail list, one or two letters from a target
  'earthling.net', 'edmail.com', 'ehmail.com', 'emil.com', 'fastermail.com', 'flashmail.com',
  'hailmail.net', 'hd-mail.com', 'homemail.com', 'hotepmail.com', 'iobox.com', 'liberto.it',
  'prontomail.com', 'proto2mail.com', 'tatanova.com', 'y7mail.com', 'ymail4.com',
];

/** Top-level domain slips: what people type instead of the TLD they meant. */
export const TLD_SLIPS: Readonly<Record<string, string>> = {
  con: 'com', cmo: 'com', cm: 'com', om: 'com', co: 'com', comm: 'com', coom: 'com', cpm: 'com',
  xom: 'com', vom: 'com', cim: 'com', ocm: 'com', clm: 'com', cok: 'com',
  nte: 'net', ne: 'net', nt: 'net', met: 'net', bet: 'net', nett: 'net', ner: 'net', ent: 'net',
  ogr: 'org', orgg: 'org', rog: 'org',
};
