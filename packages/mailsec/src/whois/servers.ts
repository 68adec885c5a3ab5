// Port-43 WHOIS servers (RFC 3912) for TLDs the RDAP bootstrap does not cover, mostly ccTLDs.
// `query` is the text sent ({domain} is replaced); some registries answer briefly or in their own
// language without the flag shown. TLDs in neither table are looked up at whois.iana.org, whose
// answer names the registry's server ("whois:" / "refer:").

export interface WhoisServer {
  host: string;
  query?: string;
}

export const WHOIS_IANA_SERVER = 'whois.iana.org';

export const WHOIS_SERVERS: Readonly<Record<string, WhoisServer>> = {
  de: { host: 'whois.denic.de', query: '-T dn,ace {domain}' },
  eu: { host: 'whois.eu' },
  it: { host: 'whois.nic.it' },
  es: { host: 'whois.nic.es' },
  be: { host: 'whois.dns.be' },
  at: { host: 'whois.nic.at' },
  se: { host: 'whois.iis.se' },
  nu: { host: 'whois.iis.nu' },
  dk: { host: 'whois.punktum.dk' },
  pl: { host: 'whois.dns.pl' },
  pt: { host: 'whois.dns.pt' },
  ie: { host: 'whois.weare.ie' },
  lu: { host: 'whois.dns.lu' },
  gr: { host: 'whois.ics.forth.gr' },
  hu: { host: 'whois.nic.hu' },
  ro: { host: 'whois.rotld.ro' },
  sk: { host: 'whois.sk-nic.sk' },
  si: { host: 'whois.register.si' },
  hr: { host: 'whois.dns.hr' },
  rs: { host: 'whois.rnids.rs' },
  bg: { host: 'whois.register.bg' },
  lt: { host: 'whois.domreg.lt' },
  lv: { host: 'whois.nic.lv' },
  ee: { host: 'whois.tld.ee' },
  is: { host: 'whois.isnic.is' },
  ua: { host: 'whois.ua' },
  ru: { host: 'whois.tcinet.ru' },
  su: { host: 'whois.tcinet.ru' },
  kz: { host: 'whois.nic.kz' },
  tr: { host: 'whois.trabis.gov.tr' },
  il: { host: 'whois.isoc.org.il' },
  jp: { host: 'whois.jprs.jp', query: '{domain}/e' },
  cn: { host: 'whois.cnnic.cn' },
  kr: { host: 'whois.kr' },
  tw: { host: 'whois.twnic.net.tw' },
  hk: { host: 'whois.hkirc.hk' },
  sg: { host: 'whois.sgnic.sg' },
  in: { host: 'whois.registry.in' },
  nz: { host: 'whois.irs.net.nz' },
  za: { host: 'whois.registry.net.za' },
  mx: { host: 'whois.mx' },
  ar: { host: 'whois.nic.ar' },
  cl: { host: 'whois.nic.cl' },
  pe: { host: 'kero.yachay.pe' },
  ve: { host: 'whois.nic.ve' },
  my: { host: 'whois.mynic.my' },
  th: { host: 'whois.thnic.co.th' },
  id: { host: 'whois.id' },
  vn: { host: 'whois.vnnic.vn' },
};
