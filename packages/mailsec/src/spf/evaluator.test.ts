import { describe, expect, it } from 'vitest';
import { checkHost } from './evaluator.ts';
import { FakeResolver } from './fake-resolver.ts';

const base = {
  'example.com': { TXT: ['v=spf1 ip4:192.0.2.0/24 include:_spf.example.net -all exp=why.example.com', 'google-site-verification=abc'] },
  '_spf.example.net': { TXT: [['v=spf1 a:mail.example.net ', 'mx ~all']], MX: [[10, 'mx1.example.net']] },
  'mail.example.net': { A: ['198.51.100.7'], AAAA: ['2001:db8::7'] },
  'mx1.example.net': { A: ['198.51.100.25'] },
  'why.example.com': { TXT: ['%{i} is not one of %{d}\'s senders'] },
} as const;

describe('checkHost', () => {
  it('passes on a direct ip4 match and reports the deciding term', async () => {
    const r = await checkHost({ ip: '192.0.2.10', sender: 'alice@example.com' }, new FakeResolver(base));
    expect(r).toMatchObject({ result: 'pass', mechanism: 'ip4:192.0.2.0/24', lookups: 0, domain: 'example.com' });
  });

  it('passes through an include, counting its lookups', async () => {
    const resolver = new FakeResolver(base);
    expect(await checkHost({ ip: '198.51.100.25', sender: 'alice@example.com' }, resolver)).toMatchObject({ result: 'pass', mechanism: 'include:_spf.example.net', lookups: 3 });
    expect(await checkHost({ ip: '2001:db8::7', sender: 'alice@example.com' }, resolver)).toMatchObject({ result: 'pass', lookups: 2 });
  });

  it('fails with the exp= explanation expanded for the failing record', async () => {
    const r = await checkHost({ ip: '203.0.113.5', sender: 'alice@example.com' }, new FakeResolver(base), { defaultExplanation: 'nope' });
    expect(r).toMatchObject({ result: 'fail', mechanism: '-all', explanation: "203.0.113.5 is not one of example.com's senders" });
  });

  it('checks postmaster@<helo> when the sender is empty', async () => {
    const zone = { 'mta.example.org': { TXT: ['v=spf1 a -all'], A: ['192.0.2.1'] } };
    expect((await checkHost({ ip: '192.0.2.1', sender: '', helo: 'mta.example.org' }, new FakeResolver(zone))).result).toBe('pass');
  });

  it('returns none for an unusable domain without any lookup, permerror for a bad IP', async () => {
    const resolver = new FakeResolver(base);
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@localhost' }, resolver)).result).toBe('none');
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@[192.0.2.1]' }, resolver)).result).toBe('none');
    expect(resolver.queries).toEqual([]);
    expect((await checkHost({ ip: 'not-an-ip', sender: 'x@example.com' }, resolver)).result).toBe('permerror');
  });

  it('ignores SPF (type 99) records', async () => {
    const resolver = new FakeResolver({ 'example.org': { SPF: ['v=spf1 -all'] } });
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@example.org' }, resolver)).result).toBe('none');
    expect(resolver.queries).toEqual(['example.org/TXT']);
  });

  it('maps include results per RFC 7208 5.2', async () => {
    const zone = {
      'a.example': { TXT: ['v=spf1 include:b.example -all'] },
      'b.example': 'SERVFAIL',
      'c.example': { TXT: ['v=spf1 include:nothing.example -all'] },
      'nothing.example': { TXT: ['hello'] },
    } as const;
    const resolver = new FakeResolver(zone);
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@a.example' }, resolver)).result).toBe('temperror');
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@c.example' }, resolver)).result).toBe('permerror');
  });

  it('stops at the 10-lookup limit and at the second void lookup too many', async () => {
    const chain: Record<string, { TXT: string[] }> = {};
    for (let i = 0; i < 11; i++) chain[`d${i}.example`] = { TXT: [`v=spf1 include:d${i + 1}.example`] };
    chain['d11.example'] = { TXT: ['v=spf1 +all'] };
    const over = await checkHost({ ip: '192.0.2.1', sender: 'x@d0.example' }, new FakeResolver(chain));
    expect(over).toMatchObject({ result: 'permerror', lookups: 11 });
    const voids = { 'v.example': { TXT: ['v=spf1 a:n1.example a:n2.example a:n3.example -all'] } };
    expect(await checkHost({ ip: '192.0.2.1', sender: 'x@v.example' }, new FakeResolver(voids))).toMatchObject({ result: 'permerror', voidLookups: 3 });
    expect(await checkHost({ ip: '192.0.2.1', sender: 'x@v.example' }, new FakeResolver(voids), { maxVoidLookups: 5 })).toMatchObject({ result: 'fail' });
  });

  it('limits mx to 10 names (permerror) and ptr to 10 names (ignored)', async () => {
    const mx = Array.from({ length: 11 }, (_, i) => [i, `m${i}.example`] as [number, string]);
    const zone = {
      'mx.example': { TXT: ['v=spf1 mx -all'], MX: mx },
      'ptr.example': { TXT: ['v=spf1 ptr -all'] },
      '1.2.0.192.in-addr.arpa': { PTR: [...Array.from({ length: 10 }, (_, i) => `h${i}.other.example`), 'host.ptr.example'] },
      'host.ptr.example': { A: ['192.0.2.1'] },
    };
    const resolver = new FakeResolver(zone);
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@mx.example' }, resolver)).result).toBe('permerror');
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@ptr.example' }, resolver)).result).toBe('fail');
  });

  it('validates ptr names and prefers a subdomain of <domain> for %{p}', async () => {
    const zone = {
      'p.example': { TXT: ['v=spf1 ptr exists:%{p}.allow.example -all'] },
      '9.2.0.192.in-addr.arpa': { PTR: ['other.example', 'mail.p.example', 'fake.p.example'] },
      'other.example': { A: ['192.0.2.9'] },
      'mail.p.example': { A: ['192.0.2.9'] },
      'fake.p.example': { A: ['192.0.2.200'] },
    };
    expect(await checkHost({ ip: '192.0.2.9', sender: 'x@p.example' }, new FakeResolver(zone))).toMatchObject({ result: 'pass', mechanism: 'ptr' });
    const byMacro = { ...zone, 'p.example': { TXT: ['v=spf1 exists:%{p}.allow.example -all'] }, 'mail.p.example.allow.example': { A: ['127.0.0.2'] } };
    expect((await checkHost({ ip: '192.0.2.9', sender: 'x@p.example' }, new FakeResolver(byMacro))).result).toBe('pass');
  });

  it('treats IPv4-mapped IPv6 clients as IPv4', async () => {
    const zone = { 'm.example': { TXT: ['v=spf1 ip6:::ffff:0:0/96 ip4:192.0.2.0/24 -all'] } };
    expect(await checkHost({ ip: '::ffff:192.0.2.4', sender: 'x@m.example' }, new FakeResolver(zone))).toMatchObject({ result: 'pass', mechanism: 'ip4:192.0.2.0/24' });
  });

  it('ignores redirect when the record has "all", and redirect to nowhere is permerror', async () => {
    const zone = {
      'r1.example': { TXT: ['v=spf1 redirect=r2.example ?all'] },
      'r2.example': { TXT: ['v=spf1 +all'] },
      'r3.example': { TXT: ['v=spf1 redirect=missing.example'] },
    };
    const resolver = new FakeResolver(zone);
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@r1.example' }, resolver)).result).toBe('neutral');
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@r3.example' }, resolver)).result).toBe('permerror');
  });

  it('gives temperror when DNS fails or the time budget is spent', async () => {
    expect((await checkHost({ ip: '192.0.2.1', sender: 'x@t.example' }, new FakeResolver({ 't.example': 'TIMEOUT' }))).result).toBe('temperror');
    const slow = { 's.example': { TXT: ['v=spf1 a -all'] } };
    expect(await checkHost({ ip: '192.0.2.1', sender: 'x@s.example' }, new FakeResolver(slow), { maxEvaluationMs: -1 })).toMatchObject({ result: 'temperror' });
  });
});
