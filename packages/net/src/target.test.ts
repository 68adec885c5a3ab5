import { describe, expect, it } from 'vitest';
import { checkTarget, checkUrl, type RefusalReason } from './target.ts';
import type { Resolver } from './resolve.ts';

// The SSRF guard: URL rules, one resolution, every answer vetted. A resolver table instead of
// system DNS: names map to answers; anything else does not exist.
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.7'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'mapped-loop.example.com': ['::ffff:127.0.0.1'],
  'nat64.example.com': ['64:ff9b::c0a8:0101'],
  'v6private.example.com': ['fd00::1'],
  'ula.example.com': ['fc00::1'],
  'cgnat.example.com': ['100.64.1.1'],
  'local.example.com': ['127.0.0.1'],
  'loop8.example.com': ['127.200.3.4'],
  'zero.example.com': ['0.0.0.0'],
  'unspec6.example.com': ['::'],
  'linklocal.example.com': ['169.254.10.20'],
  'empty.example.com': [],
};
const resolve: Resolver = async (host) => {
  const answers = DNS[host];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('checkTarget refuses', () => {
  const cases: Array<[string, boolean, RefusalReason, boolean]> = [
    // [url, allowHttpLoopback, reason, permanent]
    ['https://127.0.0.1/hook', false, 'forbidden_address', true],
    ['https://127.1.2.3/hook', false, 'forbidden_address', true],
    ['https://10.0.0.1/hook', false, 'forbidden_address', true],
    ['https://169.254.169.254/latest/meta-data/', false, 'forbidden_address', true],
    ['https://169.254.1.1/hook', false, 'forbidden_address', true],
    ['https://100.64.0.1/hook', false, 'forbidden_address', true],
    ['https://100.127.255.254/hook', false, 'forbidden_address', true],
    ['https://0.0.0.0/hook', false, 'forbidden_address', true],
    ['https://[::]/hook', false, 'forbidden_address', true],
    ['https://[::1]/hook', false, 'forbidden_address', true],
    ['https://[::ffff:127.0.0.1]/hook', false, 'forbidden_address', true],
    ['https://[::ffff:10.0.0.1]/hook', false, 'forbidden_address', true],
    ['https://[::ffff:a9fe:a9fe]/hook', false, 'forbidden_address', true],
    ['https://[fc00::1]/hook', false, 'forbidden_address', true],
    ['https://[fdff:ffff::1]/hook', false, 'forbidden_address', true],
    ['https://[fe80::1]/hook', false, 'forbidden_address', true],
    ['https://0x7f.1/hook', false, 'forbidden_address', true], // WHATWG URL normalizes to 127.0.0.1
    ['https://2130706433/hook', false, 'forbidden_address', true],
    ['https://0/hook', false, 'forbidden_address', true],
    ['https://internal.example.com/hook', false, 'forbidden_address', false],
    ['https://mixed.example.com/hook', false, 'forbidden_address', false],
    ['https://metadata.example.com/hook', false, 'forbidden_address', false],
    ['https://mapped.example.com/hook', false, 'forbidden_address', false],
    ['https://mapped-loop.example.com/hook', false, 'forbidden_address', false],
    ['https://nat64.example.com/hook', false, 'forbidden_address', false],
    ['https://v6private.example.com/hook', false, 'forbidden_address', false],
    ['https://ula.example.com/hook', false, 'forbidden_address', false],
    ['https://cgnat.example.com/hook', false, 'forbidden_address', false],
    ['https://local.example.com/hook', false, 'forbidden_address', false],
    ['https://loop8.example.com/hook', false, 'forbidden_address', false],
    ['https://zero.example.com/hook', false, 'forbidden_address', false],
    ['https://unspec6.example.com/hook', false, 'forbidden_address', false],
    ['https://linklocal.example.com/hook', false, 'forbidden_address', false],
    ['https://localhost/hook', false, 'unresolvable', false], // not in the injected table
    ['https://nowhere.example.com/hook', false, 'unresolvable', false],
    ['https://empty.example.com/hook', false, 'unresolvable', false],
    ['http://hooks.example.com/hook', false, 'scheme', true],
    ['http://hooks.example.com/hook', true, 'scheme', true], // loopback permission never opens http to the internet
    ['http://127.0.0.1:8080/hook', false, 'scheme', true],
    ['ftp://hooks.example.com/hook', false, 'scheme', true],
    ['https://user:pass@hooks.example.com/hook', false, 'userinfo', true],
    ['https://hooks.example.com:25/hook', false, 'port', true],
    ['https://hooks.example.com:22/hook', false, 'port', true],
    ['https://10.0.0.1/hook', true, 'forbidden_address', true], // loopback permission is loopback only
    ['https://[::]/hook', true, 'forbidden_address', true],
    ['https://internal.example.com/hook', true, 'forbidden_address', false],
    ['https://zero.example.com/hook', true, 'forbidden_address', false],
    ['not a url', false, 'invalid_url', true],
    ['/relative/path', false, 'invalid_url', true],
    ['https://hooks.example.com/a\r\nX-Injected: 1', false, 'invalid_url', true],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, false, 'invalid_url', true],
  ];
  it.each(cases)('%s (allowHttpLoopback=%s) → %s', async (url, allowHttpLoopback, reason, permanent) => {
    const r = await checkTarget(url, { allowHttpLoopback, resolve });
    expect(r).toMatchObject({ ok: false, reason, permanent });
  });
});

describe('checkTarget accepts', () => {
  it('a public name, with every address vetted and kept', async () => {
    const r = await checkTarget('https://hooks.example.com/in?x=1', { resolve });
    expect(r).toMatchObject({ ok: true, hostname: 'hooks.example.com', port: 443 });
    if (r.ok) expect(r.addresses.map((a) => a.address)).toEqual(DNS['hooks.example.com']);
  });

  it('a public IP literal without resolving', async () => {
    let calls = 0;
    const r = await checkTarget('https://93.184.216.34:8443/in', { resolve: async () => (calls++, []) });
    expect(r).toMatchObject({ ok: true, port: 8443, addresses: [{ address: '93.184.216.34', family: 4 }] });
    expect(calls).toBe(0);
  });

  it('loopback over http or https only when the test permission is given', async () => {
    expect(await checkTarget('http://127.0.0.1:4000/h', { allowHttpLoopback: true })).toMatchObject({ ok: true });
    expect(await checkTarget('https://[::1]:4000/h', { allowHttpLoopback: true })).toMatchObject({ ok: true });
    expect(await checkTarget('https://local.example.com:4000/h', { allowHttpLoopback: true, resolve })).toMatchObject({ ok: true });
  });

  it('resolves exactly once', async () => {
    let calls = 0;
    await checkTarget('https://hooks.example.com/', { resolve: async (h) => (calls++, resolve(h)) });
    expect(calls).toBe(1);
  });

  it('gives up on a resolver that hangs', async () => {
    const r = await checkTarget('https://slow.example.com/', { resolve: () => new Promise(() => undefined), resolveTimeoutMs: 50 });
    expect(r).toMatchObject({ ok: false, reason: 'unresolvable', permanent: false });
  });

  it('takes the caller’s URL length limit', async () => {
    expect(await checkTarget(`https://hooks.example.com/${'a'.repeat(100)}`, { resolve, maxUrlLength: 64 })).toMatchObject({ ok: false, reason: 'invalid_url' });
  });
});

describe('checkUrl (intake, no DNS)', () => {
  it('passes a name through for later resolution and refuses private literals now', () => {
    expect(checkUrl('https://hooks.example.com/x')).toMatchObject({ ok: true, literal: null });
    expect(checkUrl('https://192.168.0.1/x')).toMatchObject({ ok: false, reason: 'forbidden_address' });
    expect(checkUrl('https://[64:ff9b::a00:1]/x')).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });
});
