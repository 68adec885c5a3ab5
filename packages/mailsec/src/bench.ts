// Internals the DNS benchmark (test/bench/dns.ts) measures beside the public surface (@dv/mailsec/bench).
export { DnsResolver } from './resolver/resolver.ts';
export { decodeMessage, encodeQuery } from './resolver/wire.ts';
