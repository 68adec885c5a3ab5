// dkim_discover and blacklist_check against the simulated world's DNS on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldHandle } from '@dv/world';
import { DNSBL_TEST_ZONES, startMailsecWorld } from '../testing/world.ts';
import { DnsResolver } from '../resolver/resolver.ts';
import { discoverDkim } from '../dkim/discover.ts';
import { DKIM_SELECTORS } from '../dkim/selectors.ts';
import { createEngine } from './engine.ts';
import type { Engine } from './types.ts';

let world: WorldHandle;
let engine: Engine;

beforeAll(async () => {
  world = await startMailsecWorld();
  engine = createEngine({ dnsServers: [world.dns.server], allowPrivateTargets: true, dnsblZones: DNSBL_TEST_ZONES, dnsTimeoutMs: 1000 });
});

afterAll(async () => {
  await engine?.close();
  await world?.stop();
});

type DkimRow = { selector: string; key_type: string; bits: number | null; revoked: boolean; provider: string | null; provider_evidence: string | null; cnames: string[] };

describe('dkim_discover', () => {
  it('finds keys behind CNAMEs and local ones, with type, size and provider', async () => {
    const out = await engine.run('dkim_discover', { target: 'senders.test' });
    const rows = out.data.records.DKIM as DkimRow[];
    const bySelector = Object.fromEntries(rows.map((r) => [r.selector, r]));
    expect(Object.keys(bySelector).sort()).toEqual(['default', 'k1', 'mail', 's1']);
    expect(bySelector.k1).toMatchObject({ key_type: 'rsa', bits: 1024, provider: 'Mailchimp', provider_evidence: 'cname', cnames: ['dkim.mcsv.net'] });
    expect(bySelector.s1).toMatchObject({ bits: 2048, provider: 'SendGrid' });
    expect(bySelector.default).toMatchObject({ key_type: 'ed25519', bits: 256 });
    expect(bySelector.mail).toMatchObject({ bits: 512 });
    expect(out.report).toMatch(/mail: 512-bit RSA key: verifiers reject/);
    expect(out.data.dkim).toMatchObject({ status: 'found', selectors_checked: expect.any(Number) });
    expect((out.data.dkim as { selectors_checked: number }).selectors_checked).toBeGreaterThanOrEqual(200);
    expect(out.summary).toMatch(/^Found 4 DKIM keys for senders.test/);
  });

  it('maps Microsoft 365 selectors and reports revoked keys', async () => {
    const rows = (await engine.run('dkim_discover', { target: 'm365.test' })).data.records.DKIM as DkimRow[];
    expect(rows.map((r) => [r.selector, r.provider, r.provider_evidence, r.revoked, r.bits])).toEqual([
      ['selector1', 'Microsoft 365', 'cname', false, 2048],
      ['selector2', 'Microsoft 365', 'cname', true, null],
    ]);
  });

  it('reads a key split over several strings (acme.test sel1)', async () => {
    const rows = (await engine.run('dkim_discover', { target: 'acme.test' })).data.records.DKIM as DkimRow[];
    expect(rows).toEqual([expect.objectContaining({ selector: 'sel1', key_type: 'rsa', bits: 2048 })]);
  });

  it('skips the sweep when _domainkey is NXDOMAIN (RFC 8020)', async () => {
    world.reset();
    const out = await engine.run('dkim_discover', { target: 'nodkim.test' });
    expect(out.data.dkim).toMatchObject({ status: 'no_domainkey', domainkey_rcode: 'NXDOMAIN', selectors_checked: 0 });
    expect(world.dns.queries.filter((q) => q.name.endsWith('_domainkey.nodkim.test'))).toEqual([{ name: '_domainkey.nodkim.test', type: 'TXT', transport: 'udp' }]);
    expect(out.summary).toMatch(/does not exist \(NXDOMAIN\)/);
  });

  it('sweeps every selector with bounded concurrency', async () => {
    world.reset();
    const resolver = new DnsResolver({ servers: [world.dns.server], cacheMaxEntries: 0 });
    try {
      const found = await discoverDkim('gw-google.test', resolver, { concurrency: 8 });
      expect(found.found.map((f) => f.selector)).toEqual(['google']);
      expect(resolver.stats().maxInFlight).toBeLessThanOrEqual(8);
    } finally {
      resolver.close();
    }
    const sweep = world.dns.queries.filter((q) => q.name.endsWith('._domainkey.gw-google.test'));
    expect(sweep.length).toBe(DKIM_SELECTORS.length);
  });
});

type BlResult = { list: string; subject: string; outcome: string; codes: string[]; meanings: string[]; policy_only: boolean; reason?: string; detail?: string };

describe('blacklist_check', () => {
  it('reports an IP listing with the meaning of each code and the TXT reason', async () => {
    const out = await engine.run('blacklist_check', { target: '127.0.0.2' });
    const [zen] = (out.data.blacklist as { results: BlResult[] }).results;
    expect(zen).toMatchObject({ subject: '127.0.0.2', outcome: 'listed', codes: ['127.0.0.2', '127.0.0.10'], policy_only: false, reason: expect.stringMatching(/SBL/) });
    expect(zen?.meanings).toEqual([expect.stringMatching(/^SBL/), expect.stringMatching(/^PBL/)]);
    expect(out.summary).toMatch(/^127.0.0.2 is listed on Spamhaus ZEN/);
  });

  it('reports a refusal answer as "not usable from here", never listed; no list usable is unknown', async () => {
    const out = await engine.run('blacklist_check', { target: '127.0.0.3' });
    const results = (out.data.blacklist as { results: BlResult[]; listed: number }).results;
    expect(results[0]).toMatchObject({ outcome: 'unusable', codes: ['127.255.255.254'], detail: expect.stringMatching(/public\/open resolvers/) });
    // The only list refused: nothing was checked, so the number of listings is unknown, not 0.
    expect(out.data.blacklist).toMatchObject({ status: 'unknown', listed: null, lists_checked: 0 });
    expect(out.summary).toMatch(/^Unknown: could not check.*could not be used from here/);
    expect(out.result['Spamhaus ZEN (simulated) (127.0.0.3)']).toMatch(/^list not usable from here/);
  });

  it('checks a domain on domain lists and its MX addresses on IP lists', async () => {
    const out = await engine.run('blacklist_check', { target: 'senders.test' });
    const results = (out.data.blacklist as { results: BlResult[] }).results;
    expect(results.map((r) => [r.list, r.subject, r.outcome])).toEqual([
      ['Spamhaus ZEN (simulated)', '127.0.3.10', 'listed'],
      ['Spamhaus DBL (simulated)', 'senders.test', 'not_listed'],
    ]);
    const spammy = await engine.run('blacklist_check', { target: 'spammy.test' });
    expect((spammy.data.blacklist as { results: BlResult[] }).results.find((r) => r.subject === 'spammy.test')).toMatchObject({ outcome: 'listed', meanings: ['spam domain'] });
    const refusing = await engine.run('blacklist_check', { target: 'refusing.test' });
    expect((refusing.data.blacklist as { results: BlResult[] }).results.find((r) => r.subject === 'refusing.test')?.outcome).toBe('unusable');
    const clean = await engine.run('blacklist_check', { target: 'acme.test' });
    expect(clean.summary).toMatch(/^acme.test and 2 mail\/web server addresses are not listed on any of the 2 blacklists/);
  });

  it('skips private MX addresses when private targets are not allowed', async () => {
    const strict = createEngine({ dnsServers: [world.dns.server], dnsblZones: DNSBL_TEST_ZONES });
    try {
      const out = await strict.run('blacklist_check', { target: 'senders.test' });
      const bl = out.data.blacklist as { subjects: { ips: unknown[]; skipped: { subject: string }[] } };
      expect(bl.subjects.ips).toEqual([]);
      expect(bl.subjects.skipped.map((s) => s.subject)).toEqual(['127.0.3.10']);
    } finally {
      await strict.close();
    }
  });
});
