import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureRelay, type CaptureRelay } from '@dv/notify/testing';
import { createFakeEngine } from '../testing/fake-engine.ts';
import { startLookup, type LookupHarness } from '../testing/harness.ts';
import { BROWSER_ACCEPT, formToken, keyLinkIn, withCookies } from '../testing/web.ts';
import { TOOLS } from '../tools.ts';

// The lookup's web pages over HTTP: the home page beside the JSON index at /, the search box's
// redirects and its refusals in words, today's allowance read without being spent, the free-key
// form through the real mail flow, CSRF, and 404s: pages for page paths, problem+json for the API.

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
let relay: CaptureRelay;
let h: LookupHarness;

beforeAll(async () => {
  relay = await startCaptureRelay();
  h = await startLookup({
    engine: createFakeEngine(),
    label: 'web',
    env: { SMTP_RELAY_URL: relay.url, PUBLIC_BASE_URL: 'https://lookup.example', TRUSTED_PROXIES: '127.0.0.1,::1', KEY_REQUESTS_PER_EMAIL_PER_DAY: '2' },
  });
});

afterAll(async () => {
  await h?.close();
  await relay?.close();
});

let ipCounter = 10;
const freshIp = () => `198.51.100.${ipCounter++}`;

async function page(path: string, opts: { ip?: string; cookie?: string; accept?: string } = {}) {
  const res = await fetch(`${h.url}${path}`, { redirect: 'manual', headers: { accept: opts.accept ?? BROWSER_ACCEPT, 'x-forwarded-for': opts.ip ?? freshIp(), ...(opts.cookie ? { cookie: opts.cookie } : {}) } });
  return { res, status: res.status, text: await res.text() };
}

async function postKey(email: string, ip: string, withToken = true) {
  const home = await page('/key', { ip });
  const cookie = withCookies('', home.res);
  const body = new URLSearchParams({ email, ...(withToken ? { _csrf: formToken(home.text) } : {}) });
  const res = await fetch(`${h.url}/key`, { method: 'POST', redirect: 'manual', headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', 'x-forwarded-for': ip, cookie }, body });
  return { status: res.status, text: await res.text() };
}

describe('the home page', () => {
  it('a browser gets the page at /, any other client the JSON index; the page has the search box, every tool, the allowance and the key form', async () => {
    const { res, status, text } = await page('/');
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(res.headers.get('vary')).toMatch(/Accept/);
    expect(text).toContain('action="/search"');
    for (const t of TOOLS) expect(text).toContain(t.title);
    expect(text).toContain('10 of 10 lookups are left today');
    expect(text).toMatch(/action="\/key"/);
    expect(formToken(text)).not.toBe('');

    for (const accept of ['*/*', 'application/json']) {
      const json = await page('/', { accept });
      expect(json.res.headers.get('content-type')).toMatch(/application\/json/);
      expect(json.res.headers.get('vary')).toMatch(/Accept/);
      expect(JSON.parse(json.text)).toMatchObject({ openapi: 'https://lookup.example/openapi.json' });
    }
  });

  it("shows what is left of this address's allowance and spends none of it", async () => {
    const ip = freshIp();
    for (const target of ['a.example.com', 'b.example.com']) expect((await fetch(`${h.url}/v1/dns/${target}`, { headers: { 'x-forwarded-for': ip } })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await page('/', { ip })).text).toContain('8 of 10 lookups are left today');
    const limits = (await (await fetch(`${h.url}/v1/meta/limits`, { headers: { 'x-forwarded-for': ip } })).json()) as { used_today: number };
    expect(limits.used_today).toBe(2);
  });
});

describe('the search box', () => {
  const cases: Array<[string, string]> = [
    ['example.com', '/email-security/example.com'],
    ['  Example.COM  ', '/email-security/example.com'],
    ['192.0.2.1', '/blacklist/192.0.2.1'],
    ['2001:db8::1', '/blacklist/2001%3Adb8%3A%3A1'],
    ['Someone@Mail.Example.org', '/email-security/mail.example.org'],
    ['https://www.example.com/some/path?x=1', '/email-security/www.example.com'],
    ['v=spf1 include:_spf.example.com -all', `/validate?record=${encodeURIComponent('v=spf1 include:_spf.example.com -all')}`],
    ['"v=DMARC1; p=reject; rua=mailto:d@example.com"', `/validate?record=${encodeURIComponent('v=DMARC1; p=reject; rua=mailto:d@example.com')}`],
  ];
  it.each(cases)('%j goes to %s', async (q, where) => {
    const { status, res } = await page(`/search?q=${encodeURIComponent(q)}`);
    expect(status).toBe(303);
    expect(res.headers.get('location')).toBe(where);
  });

  it('refuses what it cannot look up in words beside the box, keeping what was typed as text', async () => {
    const bad: Array<[string, RegExp]> = [
      ['', /Type a domain/],
      ['exa mple.com', /contains spaces/],
      ['localhost', /at least two labels/],
      [EVIL, /not a valid domain|may only hold|contains spaces/],
    ];
    for (const [q, why] of bad) {
      const { status, text } = await page(`/search?q=${encodeURIComponent(q)}`);
      expect(status).toBe(400);
      expect(text).toMatch(why);
      expect(text).toContain('aria-invalid="true"');
      expect(text).not.toContain('<script>alert');
      expect(text).not.toContain('<img src=x');
    }
    expect((await page(`/search?q=${encodeURIComponent(EVIL)}`)).text).toMatch(/value="&lt;img src=x onerror=alert\(1\)(&gt;|>)&lt;script/);
  });
});

describe('the free-key form', () => {
  it('mails the same link as the API and answers "check your inbox" with the allowance; the link opens the key pages', async () => {
    const before = relay.inbox.length;
    const sent = await postKey('Reader@Example.org', freshIp());
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('Check your inbox');
    expect(sent.text).toContain('Reader@Example.org');
    expect(sent.text).toContain('10 of 10 lookups are left today');
    expect(relay.inbox).toHaveLength(before + 1);
    const link = keyLinkIn(relay.inbox.at(-1)!.raw, h.url);

    const confirm = await page(new URL(link).pathname + new URL(link).search);
    expect(confirm.status).toBe(200);
    expect(confirm.res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(confirm.text).toContain('Show my free API key');
    expect(confirm.text).not.toMatch(/dk_free_/);

    const issued = await fetch(link, { method: 'POST', headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(issued.status).toBe(200);
    const shown = await issued.text();
    expect(shown).toMatch(/dk_free_[A-Za-z0-9_-]{43}/);
    expect(shown).toContain('Authorization: Bearer');
    expect(shown).toContain('noindex');
    const again = await fetch(link, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link no longer works');
  });

  it('answers a bad address beside the field, as text, and mails nothing', async () => {
    const before = relay.inbox.length;
    const sent = await postKey(EVIL, freshIp());
    expect(sent.status).toBe(400);
    expect(sent.text).toContain('Enter an email address such as you@example.com.');
    expect(sent.text).not.toContain('<script>alert');
    expect(sent.text).toMatch(/&lt;script(&gt;|>)alert\(2\)/);
    expect(relay.inbox).toHaveLength(before);
  });

  it('refuses a post without the form token, or from another site, and mails nothing', async () => {
    const before = relay.inbox.length;
    const noToken = await postKey('csrf@example.org', freshIp(), false);
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('without its security token');
    const cross = await fetch(`${h.url}/key`, { method: 'POST', headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' }, body: 'email=csrf%40example.org' });
    expect(cross.status).toBe(403);
    expect(relay.inbox).toHaveLength(before);
  });

  it("says so in words when the address's daily requests are used up", async () => {
    expect((await postKey('busy@example.org', freshIp())).status).toBe(200);
    expect((await postKey('busy@example.org', freshIp())).status).toBe(200);
    const third = await postKey('busy@example.org', freshIp());
    expect(third.status).toBe(429);
    expect(third.text).toContain('Too many requests');
    expect(third.text).toContain('2 key requests per day for one email address');
  });
});

describe('the tool pages', () => {
  it('run the REST lookup at the permalink: live counts, cached is free and says its age; the JSON is one link away', async () => {
    const ip = freshIp();
    const live = await page('/dns/Example.COM', { ip });
    expect(live.status).toBe(200);
    expect(live.text).toContain('DNS lookup: example.com');
    expect(live.text).toContain('dns_lookup of example.com: all good.');
    expect(live.text).toContain('Looked up just now (counted as one lookup).');
    expect(live.text).toContain('9 of 10 lookups');
    expect(live.text).toContain('dns_lookup report for example.com');
    expect(live.text).toContain('href="/v1/dns/example.com"');
    const cached = await page('/dns/example.com', { ip });
    expect(cached.text).toMatch(/From the cache: looked up \d+ seconds? ago \(not counted\)/);
    expect(cached.text).toContain('9 of 10 lookups');
    const rest = (await (await fetch(`${h.url}/v1/dns/example.com`, { headers: { 'x-forwarded-for': ip } })).json()) as { source: string; cache: string };
    expect(rest).toMatchObject({ source: 'https://lookup.example/dns/example.com', cache: 'cached' });
  });

  it('validate takes the record in its address; a bad target and a used-up allowance are pages in words', async () => {
    const ok = await page(`/validate?record=${encodeURIComponent('v=spf1 -all')}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/The record (&quot;|")v=spf1 -all(&quot;|") is valid/);
    expect((await page('/validate')).text).toContain('name="record"');

    const bad = await page(`/whois/${encodeURIComponent('exa mple.com')}`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('contains spaces');

    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await fetch(`${h.url}/v1/spf/n${i}.example.com`, { headers: { 'x-forwarded-for': ip } })).status).toBe(200);
    const out = await page('/spf/another.example.com', { ip });
    expect(out.status).toBe(429);
    expect(out.text).toContain('10 lookups a day for your address are used up');
    expect(out.text).toContain('href="/key"');
    expect((await page('/', { ip })).text).toContain('No lookups are left today');
  });
});

describe('not found', () => {
  it('is a page for page paths and a browser, problem+json for the API', async () => {
    const pagePath = await page('/key/nothing-here');
    expect(pagePath.status).toBe(404);
    expect(pagePath.res.headers.get('content-type')).toMatch(/text\/html/);
    expect(pagePath.text).toContain('There is no page at /key/nothing-here');
    const other = await page('/nothing-here');
    expect(other.status).toBe(404);
    expect(other.res.headers.get('content-type')).toMatch(/text\/html/);
    for (const path of ['/v1/nothing', '/v1/dns']) {
      const api = await page(path);
      expect(api.status).toBe(404);
      expect(api.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    const json = await page('/nothing-here', { accept: 'application/json' });
    expect(json.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });
});
