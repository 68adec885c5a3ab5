// Registration data against the simulated world's RDAP server and a second RDAP server that
// answers 429, with a real MongoDB: fields stored, the schedule picks near-expiry domains sooner,
// 429 + Retry-After backs off that server only, the per-server budget paces requests, due domains
// are claimed once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import { Registry } from 'prom-client';
import { ALL_COLLECTIONS, COLLECTIONS, type WhoisDoc } from '@dv/contracts';
import { RdapBootstrap, TOOL_DEFAULTS, type Resolver } from '@dv/mailsec';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { startRdapServer, type RdapServerHandle } from '@dv/world';
import { createRegistrationMetrics, REGISTRATION_METRICS } from './metrics.ts';
import { RdapServerBudgets, retryAfterS } from './rdap-budget.ts';
import { failedLookup } from './lookup-status.ts';
import { eppStatus, nextFetchAt } from './record.ts';
import { backfillRegistrations, dueRegistrations, refreshRegistration, type RegistrationDeps } from './refresh.ts';

const DAY_MS = 86_400_000;
const NOW = new Date();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const SCHEDULE = { refreshIntervalS: 7 * 86_400, nearExpiryDays: 30, nearExpiryIntervalS: 86_400 };

let mongo: MongoDependency;
let db: Db;
let rdap: RdapServerHandle;
let throttle: http.Server;
let throttled: string[] = [];
let boot: http.Server;
let bootUrl: string;
let throttleHost: string;
let refuse: http.Server;

const listen = async (server: http.Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  mongo = await isolatedMongo('pwhois');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
  rdap = await startRdapServer({
    domains: {
      'reg-far.test': { registrar: 'Simulated Registrar, Inc.', registrarIanaId: 9999, created: '2009-03-14', updated: '2024-02-01', expires: iso(NOW.getTime() + 400 * DAY_MS), status: ['client transfer prohibited', 'client delete prohibited'], nameservers: ['ns2.simulated.test', 'ns1.simulated.test'], registrantOrg: 'Acme Corporation', registrantCountry: 'US', dnssec: true },
      'reg-near.test': { registrar: 'Cheap Names Ltd', created: '2020-01-01', expires: iso(NOW.getTime() + 10 * DAY_MS), status: ['active'], nameservers: ['ns1.simulated.test'] },
      'reg-a.test': { registrar: 'R', created: '2020-01-01', expires: iso(NOW.getTime() + 400 * DAY_MS) },
      'reg-b.test': { registrar: 'R', created: '2020-01-01', expires: iso(NOW.getTime() + 400 * DAY_MS) },
      'reg-c.test': { registrar: 'R', created: '2020-01-01', expires: iso(NOW.getTime() + 400 * DAY_MS) },
    },
    ips: [],
  });
  throttle = http.createServer((req, res) => {
    throttled.push(req.url ?? '');
    res.writeHead(429, { 'content-type': 'application/rdap+json', 'retry-after': '120' });
    res.end(JSON.stringify({ errorCode: 429, title: 'Too Many Requests' }));
  });
  throttleHost = `127.0.0.1:${await listen(throttle)}`;
  refuse = http.createServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/rdap+json' });
    res.end(JSON.stringify({ errorCode: 403, title: 'Forbidden' }));
  });
  const refuseHost = `127.0.0.1:${await listen(refuse)}`;
  // An IANA-style bootstrap: .test at the world's server, .example at the throttling one, .refused
  // at one that answers 403; .zz has no RDAP service.
  boot = http.createServer((req, res) => {
    if (req.url !== '/dns.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ version: '1.0', services: [[['test'], [rdap.baseUrl]], [['example'], [`http://${throttleHost}/rdap/`]], [['refused'], [`http://${refuseHost}/rdap/`]]] }));
  });
  bootUrl = `http://127.0.0.1:${await listen(boot)}/dns.json`;
});

afterAll(async () => {
  await rdap?.stop();
  throttle?.close();
  refuse?.close();
  boot?.close();
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

const noDns: Resolver = { resolve: async (name, type) => ({ name, type, rcode: 'SERVFAIL', answers: [], cnames: [], authenticated: false, ttl: 0, fromCache: false }) };

function deps(o: { serverQps?: number; registry?: Registry } = {}): RegistrationDeps {
  const metrics = o.registry ? createRegistrationMetrics(o.registry) : undefined;
  return {
    whois: {
      resolver: noDns,
      bootstrap: new RdapBootstrap({ url: bootUrl, refreshMs: 60_000, limits: { timeoutMs: 2000, maxBytes: 1_000_000 } }),
      servers: {},
      whoisPort: 43,
      rdap: { timeoutMs: 2000, maxBytes: TOOL_DEFAULTS.rdapMaxResponseBytes, maxRedirects: 0 },
      whois: { timeoutMs: 500, maxBytes: 10_000 },
    },
    budgets: new RdapServerBudgets({ serverQps: o.serverQps ?? 100, maxWaitMs: 5000, defaultBackoffS: 60, maxBackoffS: 3600, ...(metrics ? { metrics } : {}) }),
    schedule: SCHEDULE,
    failureRetryS: 3600,
    ...(metrics ? { metrics } : {}),
    now: () => NOW,
  };
}

const whois = () => db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name);

describe('registration data', () => {
  it('stores the spec WHOIS record from RDAP, due again in 7 days', async () => {
    const r = await refreshRegistration(db, 'reg-far.test', deps());
    expect(r.outcome).toBe('found');
    const doc = await whois().findOne({ _id: 'reg-far.test' });
    expect(doc).toMatchObject({
      domain_name: 'reg-far.test',
      registrar: 'Simulated Registrar, Inc.',
      name_servers: 'ns1.simulated.test, ns2.simulated.test',
      registrant_org: 'Acme Corporation',
      registrant_country: 'US',
      dnssec_status: 'signed',
      whois_status: 'registered',
      domain_statuses: ['clientTransferProhibited', 'clientDeleteProhibited'],
      fetched_at: NOW,
      next_fetch_at: new Date(NOW.getTime() + 7 * DAY_MS),
    });
    expect(doc?.whois_server).toContain(rdap.baseUrl);
    expect(doc?.registration_date).toEqual(new Date('2009-03-14T00:00:00Z'));
    expect(doc?.expiry_date?.getTime()).toBeGreaterThan(NOW.getTime() + 399 * DAY_MS);
  });

  it('a domain near its expiry is refreshed daily; an unknown one is stored as not registered', async () => {
    expect((await refreshRegistration(db, 'reg-near.test', deps())).next).toEqual(new Date(NOW.getTime() + DAY_MS));
    const gone = await refreshRegistration(db, 'nobody-has-this.test', deps());
    expect(gone.outcome).toBe('not_registered');
    expect((await whois().findOne({ _id: 'nobody-has-this.test' }))?.whois_status).toBe('not_registered');
  });

  it('RDAP 429 with Retry-After backs that server off (no retry storm), and only that server', async () => {
    throttled = [];
    const registry = new Registry();
    const d = deps({ registry });
    const first = await refreshRegistration(db, 'one.example', d);
    expect(first.outcome).toBe('deferred');
    expect(first.next.getTime()).toBeGreaterThanOrEqual(Date.now() + 118_000);
    const second = await refreshRegistration(db, 'two.example', d);
    expect(second.outcome).toBe('deferred');
    expect(throttled).toHaveLength(1); // the second was put off without asking
    expect((await whois().findOne({ _id: 'two.example' }))?.next_fetch_at.getTime()).toBeGreaterThanOrEqual(Date.now() + 100_000);
    expect((await refreshRegistration(db, 'reg-a.test', d)).outcome).toBe('found');
    const text = await registry.metrics();
    expect(text).toContain(`${REGISTRATION_METRICS.rdapRequests}{server="${throttleHost}",status="429"} 1`);
    expect(text).toContain(`${REGISTRATION_METRICS.rdapRequests}{server="${new URL(rdap.baseUrl).host}",status="200"} 1`);
    expect(text).toContain(`${REGISTRATION_METRICS.refreshes}{outcome="deferred"} 2`);
    expect(await whois().findOne({ _id: 'one.example' })).toMatchObject({ whois_status: 'pending', lookup_status: 'deferred', lookup_detail: expect.stringContaining(throttleHost), last_attempt_at: NOW });
  });

  it('a lookup nobody answered records why: no RDAP service for the TLD, or an RDAP server that refused', async () => {
    const none = await refreshRegistration(db, 'lonely.zz', deps());
    expect(none.outcome).toBe('failed');
    expect(await whois().findOne({ _id: 'lonely.zz' })).toMatchObject({
      whois_status: 'pending',
      lookup_status: 'no_rdap_service',
      lookup_detail: expect.stringContaining('.zz'),
      last_attempt_at: NOW,
      next_fetch_at: new Date(NOW.getTime() + 3600_000),
    });
    expect((await refreshRegistration(db, 'shy.refused', deps())).outcome).toBe('failed');
    expect(await whois().findOne({ _id: 'shy.refused' })).toMatchObject({ lookup_status: 'refused', lookup_detail: expect.stringContaining('HTTP 403') });
    // A later answer clears the reason.
    expect(await whois().findOne({ _id: 'reg-far.test' })).toMatchObject({ lookup_status: 'fetched', lookup_detail: null, last_attempt_at: NOW });
  });

  it('a failed refresh keeps the stored data and records why beside it', async () => {
    await whois().updateOne({ _id: 'shy.refused' }, { $set: { whois_status: 'registered', registrar: 'Kept Registrar' } });
    await refreshRegistration(db, 'shy.refused', deps());
    expect(await whois().findOne({ _id: 'shy.refused' })).toMatchObject({ whois_status: 'registered', registrar: 'Kept Registrar', lookup_status: 'refused' });
  });

  it('paces requests to one server at its budget', async () => {
    const d = deps({ serverQps: 5 });
    const started = performance.now();
    const outcomes = await Promise.all(['reg-a.test', 'reg-b.test', 'reg-c.test'].map((x) => refreshRegistration(db, x, d)));
    expect(outcomes.map((o) => o.outcome)).toEqual(['found', 'found', 'found']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390); // 0, 200, 400 ms
  });

  it('due domains are claimed once; watched corpus domains without a record get a pending one', async () => {
    const corpus = db.collection(COLLECTIONS.portfolioCorpus.name);
    await corpus.insertMany([
      { _id: 'watched-1.test', next_scan_at: NOW } as never,
      { _id: 'watched-2.test', next_scan_at: NOW } as never,
      { _id: 'unwatched.test', next_scan_at: null } as never,
    ]);
    const filled = await backfillRegistrations(db, null, 100, new Date(NOW.getTime() - 1000));
    expect(filled.added).toBe(2);
    expect((await whois().findOne({ _id: 'watched-1.test' }))?.whois_status).toBe('pending');
    const [a, b] = await Promise.all([dueRegistrations(db, NOW, 10), dueRegistrations(db, NOW, 10)]);
    const all = [...(a ?? []), ...(b ?? [])];
    expect(all.filter((x) => x.startsWith('watched-')).sort()).toEqual(['watched-1.test', 'watched-2.test']);
    expect(new Set(all).size).toBe(all.length);
    expect(await dueRegistrations(db, NOW, 10)).toEqual([]);
  });
});

describe('registration schedule (pure)', () => {
  const at = new Date('2026-06-01T00:00:00Z');
  const days = (n: number) => new Date(at.getTime() + n * DAY_MS);
  it.each([
    ['no expiry known', null, days(7)],
    ['expiry far away', days(400), days(7)],
    ['expiry in 33 days: looked at when it enters the 30-day window', days(33), days(3)],
    ['expiry in 10 days: daily', days(10), days(1)],
    ['expired: daily (renewal or drop)', days(-5), days(1)],
  ])('%s', (_label, expiry, expected) => {
    expect(nextFetchAt(at, expiry, SCHEDULE)).toEqual(expected);
  });

  it('reads Retry-After as seconds or an HTTP date; EPP codes from RDAP status', () => {
    expect(retryAfterS('120', 0)).toBe(120);
    expect(retryAfterS(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(retryAfterS('soon', 0)).toBeUndefined();
    expect(eppStatus('client transfer prohibited')).toBe('clientTransferProhibited');
    expect(eppStatus('active')).toBe('active');
  });
});

describe('why a lookup gave no data (pure)', () => {
  it.each([
    ['no RDAP server asked', [], 'no_rdap_service', 'No RDAP service for .zz'],
    ['an error status', [{ host: 'rdap.zz', status: 403, error: 'HTTP 403' }], 'refused', 'rdap.zz: HTTP 403'],
    ['a timeout', [{ host: 'rdap.zz', error: 'no answer within 2000 ms' }], 'unreachable', 'rdap.zz: no answer within 2000 ms'],
    ['one timeout, one error status', [{ host: 'a.zz', error: 'request failed: fetch failed' }, { host: 'b.zz', status: 500, error: 'HTTP 500' }], 'refused', 'b.zz: HTTP 500'],
  ])('%s', (_label, answers, status, detail) => {
    const why = failedLookup('x.zz', answers, { error: 'no RDAP or WHOIS server answered for .zz' });
    expect(why.status).toBe(status);
    expect(why.detail).toContain(detail);
    expect(why.detail).toContain('port 43: no RDAP or WHOIS server answered');
  });
});
