// A failed lookup is never an empty answer: blacklist_check with a resolver that fails every (or
// some) DNSBL query, dns_lookup / email_security_check / dkim_discover / reverse DNS with failing
// lookups, and the "MX host has no address" finding, against the simulated world's DNS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { mxFindings, type MxHostAddresses } from '../dns/mx-hosts.ts';
import { DnsResolver } from '../resolver/resolver.ts';
import type { Rcode, ResolveResult, Resolver, RrType } from '../resolver/types.ts';
import { DNSBL_TEST_ZONES, startMailsecWorld } from '../testing/world.ts';
import { createEngine } from './engine.ts';
import type { Engine } from './types.ts';

let world: WorldHandle;
let real: DnsResolver;
let engine: Engine;

/** The world's answers, except `rcode` for every query `fails` picks. */
function failing(fails: (name: string, type: RrType) => boolean, rcode: Rcode = 'SERVFAIL'): Resolver {
  return {
    resolve: async <T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> =>
      fails(name.toLowerCase(), type) ? { name, type, rcode, answers: [], cnames: [], authenticated: false, ttl: 0, fromCache: false, error: `injected ${rcode}` } : real.resolve(name, type),
  };
}

async function run(resolver: Resolver, tool: Parameters<Engine['run']>[0], target: string) {
  const e = createEngine({ dnsServers: [], resolver, allowPrivateTargets: true, dnsblZones: DNSBL_TEST_ZONES });
  try {
    return await e.run(tool, { target });
  } finally {
    await e.close();
  }
}

beforeAll(async () => {
  world = await startMailsecWorld();
  real = new DnsResolver({ servers: [world.dns.server], timeoutMs: 500 });
  engine = createEngine({ dnsServers: [world.dns.server], allowPrivateTargets: true, dnsblZones: DNSBL_TEST_ZONES, dnsTimeoutMs: 500 });
});

afterAll(async () => {
  await engine?.close();
  real?.close();
  await world?.stop();
});

type Bl = { status: string; listed: number | null; lists_checked: number; lists_asked: number; queries_failed: number; results: { outcome: string; rcode?: string }[] };
const dnsbl = (name: string) => name.endsWith('.dnsbl.test');

describe('blacklist_check when lists do not answer', () => {
  it.each(['SERVFAIL', 'REFUSED', 'TIMEOUT'] as const)('every DNSBL query %s: unknown, listed is null, never "not listed"', async (rcode) => {
    const out = await run(failing(dnsbl, rcode), 'blacklist_check', '127.0.0.2');
    const bl = out.data.blacklist as Bl;
    expect(bl).toMatchObject({ status: 'unknown', listed: null, lists_checked: 0, lists_asked: 1, queries_failed: 1 });
    expect(bl.results[0]).toMatchObject({ outcome: 'error', rcode });
    expect(out.summary).toMatch(/^Unknown: could not check whether 127\.0\.0\.2 is blacklisted: none of the 1 blacklist asked answered\./);
    expect(out.summary).toContain(`1 query failed (${rcode})`);
    expect(out.summary).not.toMatch(/not listed/);
  });

  it('a domain whose every list fails is unknown too', async () => {
    const out = await run(failing(dnsbl), 'blacklist_check', 'acme.test');
    expect(out.data.blacklist).toMatchObject({ status: 'unknown', listed: null, lists_checked: 0, lists_asked: 2 });
    expect(out.summary).toMatch(/^Unknown: could not check whether acme\.test is blacklisted/);
  });

  it('a partial failure names how many lists really answered', async () => {
    const out = await run(failing((n) => n.endsWith('.zen.dnsbl.test')), 'blacklist_check', 'acme.test');
    expect(out.data.blacklist).toMatchObject({ status: 'partial', listed: 0, lists_checked: 1, lists_asked: 2, queries_failed: 2 });
    expect(out.summary).toMatch(/not listed on any of the 1 blacklist that answered; 1 of the 2 could not be checked\. Note: 2 queries failed \(SERVFAIL\)/);
    expect(out.result.Checked).toMatch(/^1 of 2 lists answered/);
  });

  it('a domain whose MX addresses could not be looked up is only partly checked', async () => {
    const out = await run(failing((n, t) => n === 'mx1.acme.test' && t === 'A'), 'blacklist_check', 'acme.test');
    expect(out.data.blacklist).toMatchObject({ status: 'partial', listed: 0 });
    expect(out.summary).toMatch(/the addresses of mx1\.acme\.test could not be looked up \(SERVFAIL\), so they were not checked/);
  });

  it('a listing is still reported when another list fails', async () => {
    const out = await run(failing((n) => n.endsWith('.dbl.dnsbl.test')), 'blacklist_check', 'senders.test');
    expect(out.data.blacklist).toMatchObject({ status: 'listed', listed: 1, lists_checked: 1, lists_asked: 2 });
    expect(out.summary).toMatch(/listed on Spamhaus ZEN.*Note: 1 query failed \(SERVFAIL\)/);
  });

  it('all answering: clean, with the count of lists checked', async () => {
    const out = await engine.run('blacklist_check', { target: 'acme.test' });
    expect(out.data.blacklist).toMatchObject({ status: 'clean', listed: 0, lists_checked: 2, lists_asked: 2, queries_failed: 0 });
  });
});

type MxHost = { exchange: string; status: string; addresses: string[] };
type Finding = { code: string; severity: string; message: string; hosts: string[] };

describe('MX hosts without an address', () => {
  it.each([
    ['badmx.test', 'mail.nowhere.test', 'nxdomain'],
    ['noaddr.test', 'mail.noaddr.test', 'no_address'],
  ])('%s: dns_lookup flags it (%s, %s)', async (domain, host, status) => {
    const out = await engine.run('dns_lookup', { target: domain });
    expect(out.data.mx_hosts).toEqual([{ exchange: host, status, addresses: [] }]);
    expect(out.data.findings).toEqual([expect.objectContaining({ code: 'mx_host_no_address', severity: 'error', hosts: [host] })]);
    expect(out.summary).toContain(`mail to it cannot be delivered: the MX host has no address (${host})`);
    expect(out.summary).not.toMatch(/mail is handled by/);
    expect(out.report).toContain('the MX host has no address: mail to this domain cannot be delivered');
  });

  it.each(['badmx.test', 'noaddr.test'])('%s: email_security_check flags it instead of "receives mail through"', async (domain) => {
    const out = await engine.run('email_security_check', { target: domain });
    expect(out.summary).toMatch(new RegExp(`^${domain.replace('.', '\\.')}: the MX host has no address: mail to this domain cannot be delivered`));
    expect(out.summary).not.toMatch(/receives mail through/);
    expect((out.data.findings as Finding[]).map((f) => f.code)).toEqual(['mx_host_no_address']);
    expect(out.result['Email Gateway']).toMatch(/^none usable \(the MX host has no address/);
  });

  it('one host without an address among others is a warning, not undeliverable', async () => {
    const out = await engine.run('dns_lookup', { target: 'halfaddr.test' });
    expect((out.data.mx_hosts as MxHost[]).map((h) => [h.exchange, h.status])).toEqual([
      ['mx1.halfaddr.test', 'no_address'],
      ['mx2.halfaddr.test', 'has_address'],
    ]);
    expect((out.data.findings as Finding[]).map((f) => [f.code, f.severity])).toEqual([['mx_some_hosts_no_address', 'warning']]);
    expect(out.summary).toMatch(/mail is handled by/);
    expect(out.summary).toMatch(/some MX hosts have no address/);
    const sec = await engine.run('email_security_check', { target: 'halfaddr.test' });
    expect(sec.summary).toMatch(/receives mail through .*Note: some MX hosts have no address/);
  });

  it('null MX is flagged the same way; healthy hosts give no finding', async () => {
    const nullmx = await engine.run('dns_lookup', { target: 'nullmx.test' });
    expect((nullmx.data.findings as Finding[]).map((f) => f.code)).toEqual(['null_mx']);
    expect(nullmx.summary).toMatch(/it accepts no mail \(null MX\)/);
    const acme = await engine.run('email_security_check', { target: 'acme.test' });
    expect(acme.data.findings).toEqual([]);
    expect(acme.summary).toMatch(/^acme\.test receives mail through/);
  });

  it('a failed address lookup of the MX host is unknown, not "no address"', async () => {
    const out = await run(failing((n) => n === 'mx1.acme.test'), 'dns_lookup', 'acme.test');
    expect((out.data.mx_hosts as MxHost[])[0]).toMatchObject({ status: 'lookup_failed' });
    expect((out.data.findings as Finding[]).map((f) => f.code)).toEqual(['mx_host_lookup_failed']);
    expect(out.summary).not.toMatch(/cannot be delivered/);
  });

  it('mxFindings (pure): every combination', () => {
    const h = (exchange: string, status: MxHostAddresses['status']): MxHostAddresses => ({ exchange, status, addresses: status === 'has_address' ? ['192.0.2.1'] : [] });
    const codes = (hosts: MxHostAddresses[]) => mxFindings(hosts).map((f) => f.code);
    expect(codes([])).toEqual([]);
    expect(codes([h('a', 'has_address')])).toEqual([]);
    expect(codes([h('.', 'null_mx')])).toEqual(['null_mx']);
    expect(codes([h('a', 'nxdomain'), h('b', 'no_address')])).toEqual(['mx_host_no_address']);
    expect(codes([h('a', 'nxdomain'), h('b', 'has_address')])).toEqual(['mx_some_hosts_no_address']);
    expect(codes([h('a', 'nxdomain'), h('b', 'not_checked')])).toEqual(['mx_some_hosts_no_address']);
    expect(codes([h('a', 'no_address'), h('b', 'lookup_failed')])).toEqual(['mx_some_hosts_no_address', 'mx_host_lookup_failed']);
    expect(codes([h('a', 'lookup_failed')])).toEqual(['mx_host_lookup_failed']);
  });
});

describe('other lookups that fail', () => {
  it('dns_lookup: a failed MX lookup is unknown (null, errors, summary), not "no mail"', async () => {
    const out = await run(failing((n, t) => n === 'acme.test' && (t === 'MX' || t === 'TXT')), 'dns_lookup', 'acme.test');
    const records = out.data.records as Record<string, unknown>;
    expect(records.MX).toBeNull();
    expect(records.TXT).toBeNull();
    expect(records.A).toEqual(['127.0.1.80']);
    expect(out.data.errors).toMatchObject({ MX: 'SERVFAIL', TXT: 'SERVFAIL' });
    expect(out.summary).toMatch(/unknown MX records \(MX lookup failed: SERVFAIL\); where it receives mail is unknown/);
    expect(out.summary).toMatch(/could not check TXT/);
    expect(out.summary).not.toMatch(/receives no mail/);
    expect(out.result.MX).toBe('lookup failed (SERVFAIL)');
    expect(out.result['Email Gateway']).toBe('unknown (MX lookup SERVFAIL)');
  });

  it('dns_lookup: a domain whose every query fails says so', async () => {
    const out = await engine.run('dns_lookup', { target: 'servfail.test' });
    expect(out.summary).toMatch(/^Could not look up servfail\.test: every DNS query failed \(SERVFAIL\)/);
    expect((out.data.records as Record<string, unknown>).A).toBeNull();
  });

  it('dns_lookup: a failed DMARC lookup is not "no DMARC policy"', async () => {
    const out = await run(failing((n) => n.startsWith('_dmarc.')), 'dns_lookup', 'acme.test');
    expect(out.summary).toMatch(/the DMARC lookup failed, so the policy is unknown/);
    expect(out.result['DMARC Policy (p)']).toMatch(/^unknown \(/);
    expect(out.data.dmarc).toMatchObject({ status: 'error', policy: null });
  });

  it('email_security_check: failed MTA-STS / TLS-RPT lookups are not "none"', async () => {
    const out = await run(failing((n) => n.startsWith('_mta-sts.') || n.startsWith('_smtp._tls.')), 'email_security_check', 'acme.test');
    expect(out.result['MTA-STS']).toBe('lookup failed (SERVFAIL)');
    expect(out.result['TLS-RPT']).toBe('lookup failed (SERVFAIL)');
    expect((out.data.records as Record<string, unknown>).MTA_STS).toBeNull();
    expect(out.data.errors).toEqual({ MTA_STS: 'SERVFAIL', TLS_RPT: 'SERVFAIL' });
  });

  it('spf_analyze: an include that could not be looked up makes the count a lower bound, not "ok"', async () => {
    const out = await run(failing((n) => n === '_spf.mailer.test'), 'spf_analyze', 'acme.test');
    expect(out.summary).toMatch(/^SPF uses at least \d+ of 10 DNS lookups; whether it stays within the limit is unknown: _spf\.mailer\.test could not be looked up/);
    expect(out.summary).not.toMatch(/\(ok\)/);
  });

  it('dkim_discover: every selector failing is unknown, not "no keys found"', async () => {
    const out = await run(failing((n) => n.includes('_domainkey.')), 'dkim_discover', 'acme.test');
    expect(out.data.dkim).toMatchObject({ status: 'unknown' });
    expect(out.summary).toMatch(/^Could not check DKIM keys for acme\.test: all \d+ selector lookups failed \(SERVFAIL\)/);
    const some = await run(failing((n) => n === 'default._domainkey.acme.test'), 'dkim_discover', 'acme.test');
    expect(some.data.dkim).toMatchObject({ status: 'found' });
    expect(some.summary).toMatch(/1 lookup failed \(SERVFAIL\), so the sweep is incomplete/);
  });

  it('reverse DNS: a failed forward lookup leaves forward confirmation unknown', async () => {
    const out = await run(failing((n, t) => n === 'mx1.acme.test' && (t === 'A' || t === 'AAAA')), 'dns_lookup', '127.0.1.10');
    expect(out.data.ptr).toEqual([{ host: 'mx1.acme.test', forward_confirmed: null }]);
    expect(out.summary).toMatch(/whether the name resolves back is unknown/);
    const failed = await run(failing((n) => n.endsWith('.in-addr.arpa')), 'dns_lookup', '127.0.1.10');
    expect(failed.summary).toMatch(/^Could not check the reverse DNS of 127\.0\.1\.10: the PTR lookup failed \(SERVFAIL\)/);
    expect((failed.data.records as Record<string, unknown>).PTR).toBeNull();
  });
});
