// dns_lookup, email_security_check, spf_analyze, dmarc_check and validate against the simulated
// world's real DNS server on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { DNSBL_TEST_ZONES, startMailsecWorld } from '../testing/world.ts';
import { createEngine } from './engine.ts';
import { TOOL_NAMES, TargetError, type Engine } from './types.ts';

let world: WorldHandle;
let engine: Engine;
const NOW = new Date('2026-01-15T12:00:00Z');

beforeAll(async () => {
  world = await startMailsecWorld();
  engine = createEngine({ dnsServers: [world.dns.server], rdapBootstrapUrl: world.rdapBootstrapUrl, allowPrivateTargets: true, dnsblZones: DNSBL_TEST_ZONES, dnsTimeoutMs: 500, now: () => NOW });
});

afterAll(async () => {
  await engine?.close();
  await world?.stop();
});

describe('target validation', () => {
  it.each(TOOL_NAMES.filter((t) => t !== 'validate'))('%s throws TargetError before any DNS query', async (tool) => {
    world.reset();
    for (const bad of ['', 'not a domain', 'a..b.test', 'https://acme.test/', 'localhost', 'co.uk']) {
      await expect(engine.run(tool, { target: bad })).rejects.toBeInstanceOf(TargetError);
    }
    expect(world.dns.queries).toEqual([]);
  });

  it('rejects IPs for domain-only tools and private IPs unless allowed', async () => {
    await expect(engine.run('spf_analyze', { target: '127.0.0.2' })).rejects.toThrow(/takes a domain/);
    const strict = createEngine({ dnsServers: [world.dns.server] });
    try {
      await expect(strict.run('blacklist_check', { target: '127.0.0.2' })).rejects.toThrow(/private or special-purpose/);
    } finally {
      await strict.close();
    }
  });
});

describe('dns_lookup', () => {
  it('returns the record set, gateway, DMARC policy and DNSSEC of acme.test', async () => {
    const out = await engine.run('dns_lookup', { target: 'ACME.test.' });
    const records = out.data.records as Record<string, unknown[]>;
    expect(out.data.meta).toMatchObject({ domain: 'acme.test', email_gateway: 'acme.test', dnssec: 'signed', timestamp: NOW.toISOString() });
    expect(records.A).toEqual(['127.0.1.80']);
    expect(records.MX).toEqual([{ priority: 10, exchange: 'mx1.acme.test' }]);
    expect(records.NS).toEqual(['ns1.simulated.test']);
    expect(records.TXT).toHaveLength(2);
    expect(records.CAA).toEqual([
      { flags: 0, tag: 'issue', value: 'letsencrypt.test' },
      { flags: 0, tag: 'iodef', value: 'mailto:security@acme.test' },
    ]);
    expect(records.DNSKEY).toEqual([{ flags: 257, protocol: 3, algorithm: 13, keyTag: expect.any(Number) }]);
    expect(records.DS).toEqual([expect.objectContaining({ keyTag: 26492, digestType: 2 })]);
    expect(records.SRV).toEqual([{ service: '_submission._tcp', priority: 0, weight: 1, port: 587, target: 'mx1.acme.test' }]);
    expect(records.SOA).toEqual([expect.objectContaining({ mname: 'ns1.simulated.test', serial: 2024060101 })]);
    expect(out.result['DMARC Policy (p)']).toBe('reject');
    expect(out.result.DNSSEC).toBe('signed');
    expect(out.summary).toMatch(/DMARC policy is reject/);
    expect(out.report).toContain('DNS records for acme.test');
  });

  it('detects the provider and technology of gw-google.test', async () => {
    const out = await engine.run('dns_lookup', { target: 'gw-google.test' });
    expect(out.data.meta).toMatchObject({ email_gateway: 'Google (Gmail / Workspace)', dnssec: 'unsigned' });
    const tech = (out.data.technology as { name: string }[]).map((t) => t.name);
    expect(tech).toEqual(
      expect.arrayContaining(['Google (Search Console / Workspace)', 'Microsoft 365', 'Meta (Facebook)', 'Atlassian', 'Apple', 'DocuSign', 'Stripe', 'Google Workspace', 'AWS Route 53', 'Netlify', "Let's Encrypt"]),
    );
    expect(out.result['DMARC Policy (p)']).toBe('none');
  });

  it('reports DNSKEY without AD as dnskey_present, with Azure DNS and SRV', async () => {
    const out = await engine.run('dns_lookup', { target: 'm365.test' });
    expect(out.data.meta).toMatchObject({ dnssec: 'dnskey_present', email_gateway: 'Microsoft 365 (Exchange Online)' });
    expect((out.data.technology as { name: string }[]).map((t) => t.name)).toContain('Azure DNS');
    expect((out.data.records.SRV as { service: string }[]).map((s) => s.service)).toEqual(['_autodiscover._tcp']);
  });

  it('truncates long lists unless detail=full', async () => {
    const short = await engine.run('dns_lookup', { target: 'manytxt.test' });
    expect(short.data.records.TXT).toHaveLength(10);
    expect(short.data.meta.truncated).toEqual({ TXT: { shown: 10, total: 14 } });
    expect(short.result.TXT).toMatch(/10 of 14 shown/);
    const full = await engine.run('dns_lookup', { target: 'manytxt.test', detail: 'full' });
    expect(full.data.records.TXT).toHaveLength(14);
    expect(full.data.meta.truncated).toBeUndefined();
  });

  it('looks up PTR records for IPs, with forward confirmation', async () => {
    const ok = await engine.run('dns_lookup', { target: '127.0.1.10' });
    expect(ok.data.records.PTR).toEqual(['mx1.acme.test']);
    expect(ok.data.ptr).toEqual([{ host: 'mx1.acme.test', forward_confirmed: true }]);
    const mismatch = await engine.run('dns_lookup', { target: '127.0.2.10' });
    expect(mismatch.data.ptr).toEqual([{ host: 'host-127-0-2-10.isp.test', forward_confirmed: false }]);
  });

  it('says when a domain does not exist or the DNS fails', async () => {
    expect((await engine.run('dns_lookup', { target: 'nxdomain.test' })).summary).toMatch(/does not exist/);
    const failing = await engine.run('dns_lookup', { target: 'servfail.test' });
    expect(failing.data.errors).toMatchObject({ A: 'SERVFAIL', MX: 'SERVFAIL' });
    expect(failing.data.meta.dnssec).toBe('unknown');
  });
});

describe('email_security_check', () => {
  it('combines MX/gateway, SPF verdict and DMARC policy', async () => {
    const out = await engine.run('email_security_check', { target: 'acme.test' });
    expect(out.result).toMatchObject({
      'Email Gateway': 'acme.test (self-hosted or unknown provider, mx1.acme.test)',
      SPF: 'v=spf1 mx ip4:127.0.1.0/24 include:_spf.mailer.test -all',
      'SPF Lookups': '2 of 10 (ok)',
      'DMARC Policy (p)': 'reject',
      'MTA-STS': 'v=STSv1; id=20240601T000000',
    });
    expect(out.data.meta).toMatchObject({ domain: 'acme.test', email_gateway: 'acme.test', dnssec: 'signed' });
    expect(out.data.records.MX).toEqual([{ priority: 10, exchange: 'mx1.acme.test' }]);
    expect(out.data.spf).toMatchObject({ verdict: 'ok', lookups: { total: 2, limit: 10 } });
    expect(out.data.spf).not.toHaveProperty('tree');
    expect(out.summary).toMatch(/uses 2 of 10 DNS lookups \(ok\).*DMARC policy is reject/);
    const full = await engine.run('email_security_check', { target: 'acme.test', detail: 'full' });
    expect(full.data.spf).toHaveProperty('tree');
  });

  it('names a known provider and an over-limit SPF', async () => {
    const google = await engine.run('email_security_check', { target: 'gw-google.test' });
    expect(google.result['Email Gateway']).toBe('Google (Gmail / Workspace)');
    expect(google.result['DMARC Policy (p)']).toBe('none');
    const over = await engine.run('email_security_check', { target: 'overlimit.test' });
    expect(over.data.spf).toMatchObject({ verdict: 'over_limit' });
    expect(over.summary).toMatch(/over the limit/);
  });

  it('survives failing DNS', async () => {
    const out = await engine.run('email_security_check', { target: 'servfail.test' });
    expect(out.result['Email Gateway']).toMatch(/unknown \(MX lookup SERVFAIL\)/);
    expect(out.summary).toMatch(/SPF lookup failed/);
  });
});

describe('spf_analyze', () => {
  it('summarizes the lookup count and verdict', async () => {
    expect((await engine.run('spf_analyze', { target: 'acme.test' })).summary).toBe('SPF uses 2 of 10 DNS lookups (ok).');
    const over = await engine.run('spf_analyze', { target: 'overlimit.test' });
    expect(over.summary).toMatch(/^SPF uses 11 of 10 DNS lookups \(over the limit/);
    expect((over.data.spf as { tree: { children: unknown[] } }).tree.children).toHaveLength(11);
    expect(over.report).toContain('include:i10.overlimit.test -> i10.overlimit.test');
    expect((await engine.run('spf_analyze', { target: 'aonly.test' })).summary).toBe('aonly.test publishes no SPF record.');
  });
});

describe('dmarc_check', () => {
  it('checks external report authorization', async () => {
    const out = await engine.run('dmarc_check', { target: 'gw-google.test' });
    const dmarc = out.data.dmarc as { external_reports: { domain: string; authorized: boolean }[]; warnings: { code: string }[] };
    expect(dmarc.external_reports.map((r) => [r.domain, r.authorized])).toEqual([
      ['reports.vendor.test', true],
      ['dmarc-unauth.test', false],
    ]);
    expect(dmarc.warnings.map((w) => w.code)).toEqual(['p_none', 'external_rua_unauthorized']);
  });

  it('falls back to the organizational domain (sp applies)', async () => {
    const out = await engine.run('dmarc_check', { target: 'sub.orgfallback.test' });
    expect(out.data.dmarc).toMatchObject({ source: 'organizational', record_name: '_dmarc.orgfallback.test', policy: 'quarantine' });
    expect(out.summary).toMatch(/inherits orgfallback.test's/);
  });

  it('returns the raw record of an invalid one, and flags several records', async () => {
    const bad = await engine.run('dmarc_check', { target: 'baddmarc.test' });
    expect(bad.data.dmarc).toMatchObject({ status: 'invalid', record: 'v=DMARC1; p=maybe; pct=150; foo=bar', policy: null });
    expect((bad.data.dmarc as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual(['invalid_policy', 'invalid_pct']);
    const two = await engine.run('dmarc_check', { target: 'twodmarc.test' });
    expect(two.data.dmarc).toMatchObject({ status: 'invalid', policy: null });
    expect((two.data.records.DMARC as string[]).length).toBe(2);
    expect((two.data.dmarc as { errors: { code: string }[] }).errors[0]?.code).toBe('multiple_records');
  });

  it('reports absence and weak policies', async () => {
    expect((await engine.run('dmarc_check', { target: 'nodkim.test' })).summary).toMatch(/publishes no DMARC record/);
    const weak = await engine.run('dmarc_check', { target: 'catchall.test' });
    expect((weak.data.dmarc as { warnings: { code: string }[] }).warnings.map((w) => w.code)).toEqual(['p_none', 'no_rua']);
    expect(weak.result.Status).toBe('valid');
  });
});

describe('validate', () => {
  it('grades a record without any DNS query', async () => {
    world.reset();
    const out = await engine.run('validate', { record: 'v=DMARC1; p=none' });
    expect(out.result).toMatchObject({ 'Record Type': 'DMARC', Valid: 'yes', Score: '55/100', Grade: 'F' });
    expect(out.summary).toBe('Valid DMARC record: score 55/100, grade F (3 findings).');
    expect(world.dns.queries).toEqual([]);
    await expect(engine.run('validate', {})).rejects.toBeInstanceOf(TargetError);
  });
});
