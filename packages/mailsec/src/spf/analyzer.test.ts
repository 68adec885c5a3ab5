import { describe, expect, it } from 'vitest';
import { analyzeSpf } from './analyzer.ts';
import { FakeResolver, type FakeZone } from './fake-resolver.ts';
import { SPF_WARNING } from './warnings.ts';

function codes(warnings: { code: string }[]): string[] {
  return warnings.map((w) => w.code);
}

describe('analyzeSpf', () => {
  it('builds the include/redirect tree and counts lookups per node', async () => {
    const zone: FakeZone = {
      'example.com': { TXT: ['v=spf1 mx include:_spf.a.example include:_spf.b.example redirect=policy.example'], MX: [[10, 'mx.example.com']] },
      '_spf.a.example': { TXT: ['v=spf1 ip4:192.0.2.0/24 a:mail.a.example ~all'] },
      'mail.a.example': { A: ['192.0.2.1'] },
      '_spf.b.example': { TXT: ['v=spf1 include:_spf.a.example -all'] },
      'policy.example': { TXT: ['v=spf1 -all'] },
    };
    const analysis = await analyzeSpf('example.com', new FakeResolver(zone));
    expect(analysis.lookups).toEqual({ main: 4, nested: 3, total: 7, limit: 10 });
    expect(analysis.verdict).toBe('ok');
    expect(analysis.tree.children.map((c) => [c.via, c.domain, c.totalLookups])).toEqual([
      ['include', '_spf.a.example', 1],
      ['include', '_spf.b.example', 2],
      ['redirect', 'policy.example', 0],
    ]);
    // The same include reached through two branches is expanded (and counted) twice, not a loop.
    expect(analysis.tree.children[1]?.children[0]?.domain).toBe('_spf.a.example');
    expect(analysis.loops).toEqual([]);
  });

  it('reports over_limit with the main and nested counts', async () => {
    const includes = Array.from({ length: 6 }, (_, i) => `include:i${i}.example`).join(' ');
    const zone: FakeZone = { 'big.example': { TXT: [`v=spf1 ${includes} -all`] } };
    for (let i = 0; i < 6; i++) zone[`i${i}.example`] = { TXT: ['v=spf1 ip4:192.0.2.1 exists:x.example -all'] };
    zone['x.example'] = { A: ['127.0.0.2'] };
    const analysis = await analyzeSpf('big.example', new FakeResolver(zone));
    expect(analysis.lookups).toEqual({ main: 6, nested: 6, total: 12, limit: 10 });
    expect(analysis.verdict).toBe('over_limit');
    expect(analysis.warnings[0]?.code).toBe(SPF_WARNING.LOOKUP_LIMIT);
  });

  it('detects a loop on the current path only', async () => {
    const zone: FakeZone = {
      'a.example': { TXT: ['v=spf1 include:b.example -all'] },
      'b.example': { TXT: ['v=spf1 include:A.example. ~all'] },
    };
    const analysis = await analyzeSpf('a.example', new FakeResolver(zone));
    expect(analysis.loops).toEqual([['a.example', 'b.example', 'a.example']]);
    expect(analysis.tree.children[0]?.children[0]?.status).toBe('loop');
    expect(codes(analysis.warnings)).toContain(SPF_WARNING.LOOP);
  });

  it('counts void lookups and judges them against the limit of 2', async () => {
    const zone: FakeZone = { 'v.example': { TXT: ['v=spf1 a:gone1.example mx:gone2.example exists:gone3.example -all'] } };
    const analysis = await analyzeSpf('v.example', new FakeResolver(zone));
    expect(analysis.voidLookups).toEqual({ total: 3, limit: 2 });
    expect(analysis.voidVerdict).toBe('over_limit');
    expect(analysis.tree.terms.filter((t) => t.void).map((t) => t.term)).toEqual(['a:gone1.example', 'mx:gone2.example', 'exists:gone3.example']);
  });

  it('warns about risky and broken records', async () => {
    const long = `v=spf1 ${Array.from({ length: 40 }, (_, i) => `ip4:198.51.100.${i}`).join(' ')} -all`;
    const zone: FakeZone = {
      'risky.example': { TXT: ['v=spf1 ptr +all include:x.example redirect=y.example'] },
      'x.example': { TXT: ['v=spf1 foo:bar -all'] },
      'two.example': { TXT: ['v=spf1 -all', 'v=spf1 ~all'] },
      'old.example': { SPF: ['v=spf1 -all'] },
      'long.example': { TXT: [long.match(/.{1,255}/g) ?? []] },
      'huge.example': { TXT: [['v=spf1 ' + 'a'.repeat(300)]] },
      'inc.example': { TXT: ['v=spf1 include:nothing.example include:down.example -all'] },
      'nothing.example': { A: ['192.0.2.1'] },
      'down.example': 'SERVFAIL',
    };
    const resolver = new FakeResolver(zone);
    const risky = codes((await analyzeSpf('risky.example', resolver)).warnings);
    expect(risky).toEqual(expect.arrayContaining([SPF_WARNING.PTR_USED, SPF_WARNING.PLUS_ALL, SPF_WARNING.TERMS_AFTER_ALL, SPF_WARNING.REDIRECT_IGNORED, SPF_WARNING.UNKNOWN_MECHANISM]));
    const two = await analyzeSpf('two.example', resolver);
    expect([two.status, codes(two.warnings)]).toEqual(['permerror', [SPF_WARNING.MULTIPLE_RECORDS]]);
    const old = await analyzeSpf('old.example', resolver);
    expect([old.status, codes(old.warnings)]).toEqual(['none', [SPF_WARNING.SPF_TYPE99_ONLY]]);
    expect(codes((await analyzeSpf('long.example', resolver)).warnings)).toEqual([SPF_WARNING.RECORD_TOO_LONG]);
    expect(codes((await analyzeSpf('huge.example', resolver)).warnings)).toContain(SPF_WARNING.STRING_TOO_LONG);
    const inc = await analyzeSpf('inc.example', resolver);
    expect(inc.tree.children.map((c) => c.status)).toEqual(['none', 'temperror']);
    expect(codes(inc.warnings)).toEqual([SPF_WARNING.TARGET_HAS_NO_RECORD, SPF_WARNING.DNS_ERROR]);
  });

  it('shows macro targets without resolving them', async () => {
    const zone: FakeZone = { 'm.example': { TXT: ['v=spf1 exists:%{i}._spf.m.example include:%{d2}.example -all'] } };
    const resolver = new FakeResolver(zone);
    const analysis = await analyzeSpf('m.example', resolver);
    expect(analysis.lookups.total).toBe(2);
    expect(analysis.tree.terms.map((t) => t.note)).toEqual(['target built from macros; not resolved here', 'target built from macros; not expanded', undefined]);
    expect(resolver.queries).toEqual(['m.example/TXT']);
  });
});
