import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type AccountDomainDoc, type CorpusDomainDoc, type WhoisDoc } from '@dv/contracts';
import { outcome } from '../store/fixtures.ts';
import { slotOf, storeScan } from '../store/index.ts';
import { errorEnvelope, INTERVAL_S, startHarness, type Harness } from './testing/harness.ts';

// Every route against real stored scans (storeScan), isolation between accounts, pagination,
// filters, and the dashboard against the list.

const HOUR = 3_600_000;
let h: Harness;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
const ids: Record<string, number> = {};

async function scan(domain: string, at: Date, fields: Parameters<typeof outcome>[1]) {
  await storeScan(h.db, domain, slotOf(domain, at, INTERVAL_S), outcome(at, fields), { intervalS: INTERVAL_S, now: at });
}

beforeAll(async () => {
  h = await startHarness('proutes');
  a = await h.account('enterprise_max');
  b = await h.account('enterprise');
  const add = await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['G1.example.test', 'm1.example.test', 'n1.example.test', 'o1.example.test', 'u1.example.test', 'g1.example.test', '192.0.2.1', 'http://x.example.test/', 'bad..name.test'] } });
  expect(add.status).toBe(200);
  for (const r of add.body.data) if (r.id) ids[r.domain.split('.')[0]] = r.id;
  const now = Date.now();
  // The scans below are dated before the adds: the account's own history of its names starts earlier.
  await h.db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateMany({ account_id: a.accountId }, { $set: { first_seen: new Date(now - 30 * 24 * HOUR) } });
  await scan('g1.example.test', new Date(now - 3 * 24 * HOUR), { mx: '10 old.example.test' });
  await scan('g1.example.test', new Date(now - HOUR), {});
  await scan('m1.example.test', new Date(now - 2 * HOUR), { email_gateway: 'Microsoft 365', dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' });
  await scan('n1.example.test', new Date(now - 2 * 24 * HOUR), { email_gateway: null, dmarc: null, dmarc_policy_p: null, spf: null, spf_total_lookups: null });
  await scan('o1.example.test', new Date(now - 30 * 24 * HOUR), { spf_total_lookups: 12 });
  await scan('x1.example.test', new Date(now - HOUR), { mx: '0 .', email_gateway: 'Null MX' });
  await h.db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name).insertOne({
    _id: 'g1.example.test', domain_name: 'g1.example.test', registrar: 'Example Registrar', name_servers: 'ns1.dns.test', registrant_name: null, registrant_org: 'G1', registrant_country: 'DE', registrant_state: null,
    contact_email: null, registrar_abuse_email: 'abuse@registrar.test', registrar_abuse_phone: null, dnssec_status: 'unsigned', whois_status: 'active', whois_server: null,
    registration_date: new Date('2010-01-01T00:00:00Z'), expiry_date: new Date('2030-01-01T00:00:00Z'), updated_date: null, privacy_enabled: false, domain_statuses: ['clientTransferProhibited'],
    ip_geolocation: {}, fetched_at: new Date(now - HOUR), next_fetch_at: new Date(now + 24 * HOUR),
  });
  await h.call('POST', '/api/v1/domains/', { key: b.key, body: { domains: ['b1.example.test'] } });
});
afterAll(async () => h?.close());

const list = async (query = '', key = a.key) => (await h.call('GET', `/api/v1/domains/${query}`, { key })).body;

describe('POST /api/v1/domains/', () => {
  it('answers per name: added, already monitored (repeats, and when active already), invalid with a reason; queues priority scans for the new names', async () => {
    const again = await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['g1.example.test', 'münchen.example.test', 'not a name'] } });
    expect(again.body.data).toEqual([
      { input: 'g1.example.test', domain: 'g1.example.test', id: ids.g1, result: 'already_monitored' },
      { input: 'münchen.example.test', domain: 'xn--mnchen-3ya.example.test', id: 6, result: 'added' },
      { input: 'not a name', domain: null, id: null, result: 'invalid', reason: expect.any(String) },
    ]);
    expect(again.body.meta).toEqual({ added: 1, already_monitored: 1, invalid: 1 });
    expect(h.scanRequests).toContainEqual(['xn--mnchen-3ya.example.test']);
    expect(h.scanRequests[0]).toEqual(['g1.example.test', 'm1.example.test', 'n1.example.test', 'o1.example.test', 'u1.example.test']);
    await h.call('DELETE', '/api/v1/domains/6/', { key: a.key });
  });

  it('refused names of the first request carry their reason, in order', async () => {
    const r = await h.call('POST', '/api/v1/domains/', { key: b.key, body: { domains: ['192.0.2.1', 'http://x.example.test/', 'bad..name.test', 'B1.example.test.'] } });
    expect(r.body.data.map((x: { result: string }) => x.result)).toEqual(['invalid', 'invalid', 'invalid', 'already_monitored']);
    for (const x of r.body.data.slice(0, 3)) expect(x.reason.length).toBeGreaterThan(3);
  });
});

describe('GET /api/v1/domains/', () => {
  it('walking meta.next visits every domain once; next and previous are omitted at the ends', async () => {
    const seen: number[] = [];
    let page = await list('?limit=2');
    expect(page.meta).toMatchObject({ total_count: 5, limit: 2, offset: 0 });
    expect(page.meta).not.toHaveProperty('previous');
    for (let n = 0; n < 5; n++) {
      seen.push(...page.data.map((d: { id: number }) => d.id));
      if (!page.meta.next) break;
      expect(page.meta.next).toMatch(new RegExp(`^${h.url}/api/v1/domains/\\?limit=2&offset=\\d+$`));
      page = (await h.call('GET', page.meta.next, { key: a.key })).body;
      expect(page.meta.previous).toMatch(/^http:\/\//);
    }
    expect(page.meta).not.toHaveProperty('next');
    expect(seen).toEqual([ids.g1, ids.m1, ids.n1, ids.o1, ids.u1]);
    expect(page.data[0]).toEqual({ id: ids.u1, domain: 'u1.example.test', email_gateway: null, dmarc_policy_p: null, spf: null, scanned_at: null, added_at: expect.any(String), folder_id: null, is_favorite: false, tags: [] });
  });

  it('filters by search, email_gateway (name or none), dmarc_status (incl. missing) and keeps other filters on the page links', async () => {
    const names = async (q: string) => (await list(q)).data.map((d: { domain: string }) => d.domain.split('.')[0]);
    expect(await names('?search=M1.')).toEqual(['m1']);
    expect(await names('?email_gateway=Google')).toEqual(['g1', 'o1']);
    expect(await names('?email_gateway=none')).toEqual(['n1', 'u1']);
    expect(await names('?dmarc_status=none')).toEqual(['m1']);
    expect(await names('?dmarc_status=missing')).toEqual(['n1', 'u1']);
    expect(await names('?dmarc_status=reject&search=o1')).toEqual(['o1']);
    expect((await list('?email_gateway=none&limit=1')).meta.next).toContain('email_gateway=none');
  });

  it('email_gateway takes the value the API returns in any case, the vendor id, or the vendor table\'s display name', async () => {
    const names = async (q: string) => (await list(q)).data.map((d: { domain: string }) => d.domain.split('.')[0]);
    for (const v of ['google', 'GOOGLE', 'Google', 'google%20(gmail%20%2F%20workspace)']) expect(await names(`?email_gateway=${v}`), v).toEqual(['g1', 'o1']);
    for (const v of ['microsoft_365', 'microsoft%20365', 'Microsoft%20365']) expect(await names(`?email_gateway=${v}`), v).toEqual(['m1']);
    expect(await names('?email_gateway=none')).toEqual(['n1', 'u1']);
    expect(await names('?email_gateway=null_mx')).toEqual([]);
    expect(await names('?email_gateway=Yahoo')).toEqual([]);
    // Neither a vendor nor a mail host's domain: a 400 naming what is accepted, not an empty list.
    const bad = await h.call('GET', '/api/v1/domains/?email_gateway=Gogle', { key: a.key });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.errors)).toContain('microsoft_365');
  });

  it('on Enterprise Max Premium lists the whole active corpus, with id null for domains the account does not monitor', async () => {
    const premium = await h.account('enterprise_max_premium');
    await h.call('POST', '/api/v1/domains/', { key: premium.key, body: { domains: ['m1.example.test', 'x1.example.test'] } });
    const all = await list('?limit=5000', premium.key);
    const byName = new Map(all.data.map((d: { domain: string }) => [d.domain, d]));
    expect(byName.get('g1.example.test')).toMatchObject({ id: null, email_gateway: 'Google', added_at: null });
    expect(byName.get('m1.example.test')).toMatchObject({ id: 1, email_gateway: 'Microsoft 365' });
    expect(byName.has('b1.example.test')).toBe(true);
    expect((await list('?email_gateway=Microsoft%20365', premium.key)).data.map((d: { domain: string }) => d.domain)).toEqual(['m1.example.test']);
    expect((await list('?email_gateway=microsoft_365', premium.key)).data.map((d: { domain: string }) => d.domain)).toEqual(['m1.example.test']);
    expect((await list('?email_gateway=NULL%20MX', premium.key)).data.map((d: { domain: string }) => d.domain)).toEqual(['x1.example.test']);
    // Not on other plans.
    expect((await list('', b.key)).data.map((d: { domain: string }) => d.domain)).toEqual(['b1.example.test']);
  });
});

describe('one domain', () => {
  it('detail with scan_result, change_history and whois; scan-results; changes paginated; whois', async () => {
    const d = (await h.call('GET', `/api/v1/domains/${ids.g1}/`, { key: a.key })).body.data;
    expect(d).toMatchObject({ id: ids.g1, domain: 'g1.example.test', tld: 'test', status: 'active', scan_count: 2, email_gateway: 'Google', dmarc_policy_p: 'reject', notes: null, custom_label: null });
    expect(d.scan_result).toMatchObject({ mx: '10 mx1.example.test', previous_mx: '10 old.example.test', scanned_at: d.last_scanned });
    expect(d.change_history).toEqual([expect.objectContaining({ domain_name: 'g1.example.test', field_name: 'mx', old_value: '10 old.example.test', new_value: '10 mx1.example.test' })]);
    expect(d.whois).toMatchObject({ registrar: 'Example Registrar', registration_date: '2010-01-01T00:00:00.000Z', domain_statuses: ['clientTransferProhibited'] });
    expect(d.whois).toMatchObject({ lookup_status: 'fetched', lookup_detail: null, next_fetch_at: expect.any(String) });
    const sr = (await h.call('GET', `/api/v1/domains/${ids.g1}/scan-results/`, { key: a.key })).body;
    expect(sr.data).toEqual(d.scan_result);
    const ch = (await h.call('GET', `/api/v1/domains/${ids.g1}/changes/?limit=1`, { key: a.key })).body;
    expect(ch).toMatchObject({ status: 'ok', data: d.change_history, meta: { total_count: 1, limit: 1, offset: 0 } });
    expect(ch.meta).not.toHaveProperty('next');
    expect((await h.call('GET', `/api/v1/domains/${ids.g1}/whois/`, { key: a.key })).body.data).toEqual(d.whois);
    // Not scanned yet: data null.
    expect((await h.call('GET', `/api/v1/domains/${ids.u1}/scan-results/`, { key: a.key })).body).toEqual({ status: 'ok', data: null, meta: {}, errors: [] });
  });

  it('whois before any registration data says why: not looked up yet, or the reason the last lookup failed and when the next is due', async () => {
    const none = (await h.call('GET', `/api/v1/domains/${ids.u1}/whois/`, { key: a.key })).body;
    expect(none.status).toBe('ok');
    expect(none.data).toMatchObject({ domain_name: 'u1.example.test', whois_status: 'pending', registrar: null, lookup_status: 'pending', lookup_detail: expect.stringContaining('not been looked up'), last_attempt_at: null, next_fetch_at: null });
    expect((await h.call('GET', `/api/v1/domains/${ids.u1}/`, { key: a.key })).body.data.whois).toEqual({ ...none.data, fetched_at: expect.any(String) });
    const due = new Date(Date.now() + 6 * HOUR);
    const tried = new Date(Date.now() - HOUR);
    await h.db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name).insertOne({
      _id: 'n1.example.test', domain_name: 'n1.example.test', registrar: null, name_servers: null, registrant_name: null, registrant_org: null, registrant_country: null, registrant_state: null,
      contact_email: null, registrar_abuse_email: null, registrar_abuse_phone: null, dnssec_status: null, whois_status: 'pending', whois_server: null,
      registration_date: null, expiry_date: null, updated_date: null, privacy_enabled: false, domain_statuses: [], ip_geolocation: {}, fetched_at: tried, next_fetch_at: due,
      lookup_status: 'no_rdap_service', lookup_detail: 'No RDAP service for .test in the IANA bootstrap.', last_attempt_at: tried,
    });
    expect((await h.call('GET', `/api/v1/domains/${ids.n1}/whois/`, { key: a.key })).body.data).toMatchObject({
      whois_status: 'pending', lookup_status: 'no_rdap_service', lookup_detail: 'No RDAP service for .test in the IANA bootstrap.', last_attempt_at: tried.toISOString(), next_fetch_at: due.toISOString(),
    });
  });

  it('another account\'s ids, and unknown ones, are 404 on every route', async () => {
    // B holds only its id 1; A's other ids and an unknown one are all 404 for B.
    for (const key of [b.key]) {
      for (const id of [ids.m1, ids.u1, 999]) {
        for (const [m, p, body] of [
          ['GET', `/api/v1/domains/${id}/`],
          ['GET', `/api/v1/domains/${id}/scan-results/`],
          ['GET', `/api/v1/domains/${id}/changes/`],
          ['GET', `/api/v1/domains/${id}/whois/`],
          ['PATCH', `/api/v1/domains/${id}/`, { is_favorite: true }],
          ['DELETE', `/api/v1/domains/${id}/`],
        ] as const) {
          const r = await h.call(m, p, { key, body });
          expect(r.status, `${m} ${p}`).toBe(404);
          expect(r.body).toEqual(errorEnvelope('not_found'));
        }
      }
    }
    // B's own id 1 is its own domain, not A's.
    expect((await h.call('GET', '/api/v1/domains/1/', { key: b.key })).body.data.domain).toBe('b1.example.test');
    expect((await h.call('GET', `/api/v1/domains/${ids.g1}/`, { key: a.key })).body.data.is_favorite).toBe(false);
  });
});

describe('dashboard summary', () => {
  it('matches the list: totals, distributions, SPF, freshness, needs attention, recent changes', async () => {
    const s = (await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key })).body.data;
    const total = (await list()).meta.total_count;
    expect(s.total_domains).toBe(total);
    for (const k of ['reject', 'quarantine', 'none', 'missing']) {
      expect(s.dmarc_distribution[k].count, k).toBe((await list(`?dmarc_status=${k}`)).meta.total_count);
    }
    for (const g of s.email_gateway_distribution) expect(g.count).toBe((await list(`?email_gateway=${encodeURIComponent(g.gateway_name)}`)).meta.total_count);
    expect(s.email_gateway_distribution).toEqual([
      { gateway_name: 'Google', count: 2, percentage: 40 },
      { gateway_name: 'none', count: 2, percentage: 40 },
      { gateway_name: 'Microsoft 365', count: 1, percentage: 20 },
    ]);
    expect(s.dmarc_distribution.reject).toEqual({ count: 2, percentage: 40 });
    expect(s.spf_status).toEqual({ valid: 2, over_limit: 1, missing: 2 });
    expect(s.scan_freshness).toEqual({ scanned_last_24h: 2, scanned_last_7d: 3, percentage_24h: 40, percentage_7d: 60 });
    expect(s.needs_attention_count).toBe(3);
    expect(s.recent_changes).toEqual([expect.objectContaining({ domain_name: 'g1.example.test', field_name: 'mx' })]);
    expect((await h.call('GET', '/api/v1/dashboard/summary/', { key: b.key })).body.data).toMatchObject({ total_domains: 1, needs_attention_count: 0, recent_changes: [] });
  });
});

describe('PATCH and DELETE /api/v1/domains/{id}/', () => {
  it('sets the user fields, moves through statuses (watchers follow), and removed domains leave the list and the dashboard', async () => {
    const p = await h.call('PATCH', `/api/v1/domains/${ids.g1}/`, { key: a.key, body: { folder_id: 7, is_favorite: true, tags: ['vip', 'vip', 'eu'], notes: 'call them', custom_label: 'Main' } });
    expect(p.body.data).toMatchObject({ folder_id: 7, is_favorite: true, tags: ['vip', 'eu'], notes: 'call them', custom_label: 'Main', status: 'active' });
    expect((await list('?folder_id=7')).data.map((d: { id: number }) => d.id)).toEqual([ids.g1]);
    expect((await list('?folder_id=none')).meta.total_count).toBe(4);
    expect((await h.call('PATCH', `/api/v1/domains/${ids.g1}/`, { key: a.key, body: { color: 'red' } })).body).toEqual(errorEnvelope('validation_error'));

    const corpus = (d: string) => h.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).findOne({ _id: d });
    expect((await h.call('PATCH', `/api/v1/domains/${ids.u1}/`, { key: a.key, body: { status: 'inactive' } })).body.data.status).toBe('inactive');
    expect(await corpus('u1.example.test')).toMatchObject({ watchers: 0, next_scan_at: null });
    expect((await list()).meta.total_count).toBe(5);
    const before = h.scanRequests.length;
    expect((await h.call('PATCH', `/api/v1/domains/${ids.u1}/`, { key: a.key, body: { status: 'active' } })).body.data.status).toBe('active');
    expect((await corpus('u1.example.test'))?.watchers).toBe(1);
    expect(h.scanRequests.slice(before)).toEqual([['u1.example.test']]);

    const del = await h.call('DELETE', `/api/v1/domains/${ids.o1}/`, { key: a.key });
    expect(del.body.data).toMatchObject({ id: ids.o1, status: 'removed' });
    expect((await h.call('DELETE', `/api/v1/domains/${ids.o1}/`, { key: a.key })).status).toBe(200);
    expect((await list()).data.map((d: { id: number }) => d.id)).not.toContain(ids.o1);
    const s = (await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key })).body.data;
    expect(s).toMatchObject({ total_domains: 4, needs_attention_count: 2, spf_status: { valid: 2, over_limit: 0, missing: 2 } });
    expect((await corpus('o1.example.test'))?.watchers).toBe(0);
  });
});
