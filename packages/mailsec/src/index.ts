// Public surface of @dv/mailsec: the DNS resolver and the SPF engine.
export * from './resolver/index.ts';
export * from './spf/index.ts';
