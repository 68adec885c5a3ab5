import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQuotedPrintable, startCaptureRelay, type CaptureRelay } from '@dv/notify/testing';
import { createFakeEngine } from '../testing/fake-engine.ts';
import { startLookup, type LookupHarness } from '../testing/harness.ts';
import { LOOKUP_COLLECTIONS, sha256 } from './store.ts';

// The free-key flow end to end through a real SMTP relay (a local smtp-server capturing mail):
// request → email with link → follow link → key shown once → key works for 100/day → link dead.

let relay: CaptureRelay;
let h: LookupHarness;

beforeAll(async () => {
  relay = await startCaptureRelay();
  h = await startLookup({
    engine: createFakeEngine(),
    label: 'keys',
    env: {
      SMTP_RELAY_URL: relay.url,
      MAIL_FROM: 'Lookup <no-reply@lookup.test>',
      PUBLIC_BASE_URL: 'https://lookup.example',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      KEY_REQUESTS_PER_EMAIL_PER_DAY: '2',
      KEY_REQUESTS_PER_IP_PER_DAY: '4',
    },
  });
});

afterAll(async () => {
  await h?.close();
  await relay?.close();
});

/** The link from a captured message (quoted-printable soft breaks and =XX escapes undone). */
function linkIn(raw: string): string {
  const decoded = decodeQuotedPrintable(raw);
  const match = /https:\/\/lookup\.example\/v1\/keys\/verify\?token=[A-Za-z0-9_-]{43}/.exec(decoded);
  if (!match) throw new Error(`no link in:\n${decoded}`);
  return match[0];
}

/** The service runs on a test port; the emailed link names the public base URL. */
const local = (link: string) => `${h.url}${new URL(link).pathname}${new URL(link).search}`;

const requestKey = (email: string, ip: string) =>
  fetch(`${h.url}/v1/keys/request`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Forwarded-For': ip }, body: JSON.stringify({ email }) });

describe('free key by email verification', () => {
  it('request → email → link → key shown once → 100 lookups a day → link cannot be reused', async () => {
    const res = await requestKey('Reader@Example.org', '192.0.2.80');
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ status: 'sent', email: 'Reader@Example.org' });

    expect(relay.inbox).toHaveLength(1);
    const mail = relay.inbox[0]!;
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(['reader@example.org']);
    expect(mail.from).toBe('no-reply@lookup.test');
    const link = linkIn(mail.raw);
    const token = new URL(link).searchParams.get('token')!;

    // Only the hash of the token is stored.
    const stored = await h.db.collection(LOOKUP_COLLECTIONS.keyRequests.name).findOne({});
    expect(stored?.token_hash).toBe(sha256(token));
    expect(JSON.stringify(stored)).not.toContain(token);

    const verified = await fetch(local(link), { method: 'POST' });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    const issued = (await verified.json()) as { api_key: string; lookups_per_day: number };
    expect(issued.api_key).toMatch(/^dk_free_[A-Za-z0-9_-]{43}$/);
    expect(issued.lookups_per_day).toBe(100);
    const keyDoc = await h.db.collection(LOOKUP_COLLECTIONS.freeKeys.name).findOne({});
    expect(keyDoc?.key_hash).toBe(sha256(issued.api_key));
    expect(JSON.stringify(keyDoc)).not.toContain(issued.api_key);

    // Single use: the second click is refused and shows no key.
    const again = await fetch(local(link), { method: 'POST' });
    expect(again.status).toBe(410);
    expect(again.headers.get('content-type')).toMatch(/problem\+json/);
    expect(((await again.json()) as { code: string }).code).toBe('verification_link_expired');

    // The key raises the allowance to 100 per day, counted per key, not per IP.
    const auth = { Authorization: `Bearer ${issued.api_key}` };
    for (let i = 1; i <= 100; i++) {
      const r = await fetch(`${h.url}/v1/dmarc/k${i}.keys.test`, { headers: { ...auth, 'X-Forwarded-For': `198.18.0.${i}` } });
      expect(r.status).toBe(200);
      if (i === 1 || i === 100) expect(((await r.json()) as { usage: unknown }).usage).toEqual({ remaining_today: 100 - i, limit: 100, tier: 'free' });
      else await r.body?.cancel();
    }
    const refused = await fetch(`${h.url}/v1/dmarc/k101.keys.test`, { headers: auth });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'quota_exhausted', tier: 'free', limit: 100, pricing: expect.any(String) });
    const limits = await (await fetch(`${h.url}/v1/meta/limits`, { headers: auth })).json();
    expect(limits).toMatchObject({ tier: 'free', limit: 100, used_today: 100, remaining_today: 0 });
  });

  it('a new key for the same email replaces the old one and keeps the day count', async () => {
    await requestKey('reader@example.org', '192.0.2.81');
    const issued = (await (await fetch(local(linkIn(relay.inbox.at(-1)!.raw)), { method: 'POST' })).json()) as { api_key: string };
    const old = await h.db.collection(LOOKUP_COLLECTIONS.freeKeys.name).countDocuments({ revoked_at: { $ne: null } });
    expect(old).toBe(1);
    const r = await fetch(`${h.url}/v1/meta/limits`, { headers: { Authorization: `Bearer ${issued.api_key}` } });
    expect(await r.json()).toMatchObject({ tier: 'free', used_today: 100 });
  });

  it('a GET of the link (a mail scanner) spends nothing: it shows a button whose POST issues the key', async () => {
    await requestKey('browser@example.org', '192.0.2.82');
    const link = local(linkIn(relay.inbox.at(-1)!.raw));
    const token = new URL(link).searchParams.get('token')!;
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    // Link scanners fetch with any Accept, several times: none of it issues a key.
    for (const headers of [html, { accept: '*/*' }, { accept: 'application/json' }]) {
      const scanned = await fetch(link, { headers });
      expect(scanned.status).toBe(200);
      expect(scanned.headers.get('content-type')).toMatch(/text\/html/);
      const body = await scanned.text();
      expect(body).not.toMatch(/dk_free_/);
      expect(body).toContain(`<form method="post" action="?token=${token}">`);
    }
    expect(await h.db.collection(LOOKUP_COLLECTIONS.freeKeys.name).countDocuments({ email: 'browser@example.org' })).toBe(0);
    const page = await fetch(link, { headers: html });
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    // The button: a form POST to the same URL, as a browser sends it.
    const issued = await fetch(link, { method: 'POST', headers: { ...html, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('content-type')).toMatch(/text\/html/);
    expect(issued.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await issued.text()).toMatch(/dk_free_[A-Za-z0-9_-]{43}/);
    // Spent: the page now says so instead of offering the button.
    const after = await fetch(link, { headers: html });
    expect(after.status).toBe(410);
    expect(await after.text()).not.toContain('<form');
  });

  it('rate-limits requests per email and per IP', async () => {
    const sent = relay.inbox.length;
    expect((await requestKey('limited@example.org', '192.0.2.90')).status).toBe(202);
    expect((await requestKey('LIMITED@example.org', '192.0.2.91')).status).toBe(202);
    const perEmail = await requestKey('limited@example.org', '192.0.2.92');
    expect(perEmail.status).toBe(429);
    expect(perEmail.headers.get('retry-after')).toBeTruthy();
    expect(await perEmail.json()).toMatchObject({ code: 'rate_limited' });
    for (let i = 0; i < 4; i++) expect((await requestKey(`ip${i}@example.org`, '192.0.2.93')).status).toBe(202);
    expect((await requestKey('ip5@example.org', '192.0.2.93')).status).toBe(429);
    expect(relay.inbox.length).toBe(sent + 6);
  });

  it('refuses bad addresses and bad tokens', async () => {
    const bad = await requestKey('not-an-email', '192.0.2.95');
    expect(bad.status).toBe(400);
    expect((await fetch(`${h.url}/v1/keys/verify?token=short`)).status).toBe(400);
    expect((await fetch(`${h.url}/v1/keys/verify?token=${'A'.repeat(43)}`, { method: 'POST' })).status).toBe(410);
    expect((await fetch(`${h.url}/v1/keys/verify?token=%22%3E%3Cscript%3E`, { method: 'POST' })).status).toBe(400);
  });
});
