import { describe, expect, it } from 'vitest';
import { parseSpfRecord, SPF_ERROR } from './parser.ts';

function errorsOf(text: string) {
  return parseSpfRecord(text).errors.map((e) => e.code);
}

describe('parseSpfRecord', () => {
  it('parses every mechanism and modifier with qualifiers, CIDRs and macros', () => {
    const { record, errors } = parseSpfRecord(
      'v=spf1 +a -mx:mail.example.com/24//64 ~ptr ?ip4:192.0.2.0/24 ip6:2001:db8::/32 include:_spf.example.net exists:%{ir}.bl.example.org redirect=other.example exp=explain.%{d} x-custom=%{h} all',
    );
    expect(errors).toEqual([]);
    expect(record.mechanisms.map((m) => `${m.qualifier}${m.kind}`)).toEqual(['+a', '-mx', '~ptr', '?ip4', '+ip6', '+include', '+exists', '+all']);
    expect(record.mechanisms[1]).toMatchObject({ kind: 'mx', cidr4: 24, cidr6: 64, domainSpec: { text: 'mail.example.com', hasMacros: false } });
    expect(record.mechanisms[0]).toMatchObject({ kind: 'a', cidr4: 32, cidr6: 128 });
    expect(record.mechanisms[3]).toMatchObject({ address: '192.0.2.0', prefix: 24 });
    expect(record.redirect?.domainSpec.text).toBe('other.example');
    expect(record.exp?.domainSpec.hasMacros).toBe(true);
    expect(record.unknownModifiers.map((m) => m.name)).toEqual(['x-custom']);
  });

  it('is case-insensitive for the version, mechanism and modifier names', () => {
    expect(parseSpfRecord('V=SPF1 A:Example.COM MX INCLUDE:x.example Redirect=y.example').errors).toEqual([]);
  });

  it('accepts several spaces between terms and trailing spaces', () => {
    const { record, errors } = parseSpfRecord('v=spf1  a   -all  ');
    expect(errors).toEqual([]);
    expect(record.terms).toHaveLength(2);
  });

  it('keeps "/" inside a domain-spec apart from the CIDR suffix', () => {
    const { record, errors } = parseSpfRecord('v=spf1 a:foo:bar/baz.example.com/24');
    expect(errors).toEqual([]);
    expect(record.mechanisms[0]).toMatchObject({ domainSpec: { text: 'foo:bar/baz.example.com' }, cidr4: 24 });
  });

  it.each([
    ['v=spf1 -all moo', SPF_ERROR.UNKNOWN_MECHANISM],
    ['v=spf1 redirect:example.com', SPF_ERROR.UNKNOWN_MECHANISM],
    ['v=spf1 -all.', SPF_ERROR.UNKNOWN_MECHANISM],
    ['v=spf1 all:foo', SPF_ERROR.UNEXPECTED_ARGUMENT],
    ['v=spf1 ptr/0', SPF_ERROR.UNEXPECTED_ARGUMENT],
    ['v=spf1 include', SPF_ERROR.MISSING_DOMAIN],
    ['v=spf1 include:', SPF_ERROR.MISSING_DOMAIN],
    ['v=spf1 exp=', SPF_ERROR.MISSING_DOMAIN],
    ['v=spf1 a:foo-bar', SPF_ERROR.INVALID_DOMAIN_SPEC],
    ['v=spf1 a:111.222.33.44', SPF_ERROR.INVALID_DOMAIN_SPEC],
    ['v=spf1 a:example.-com', SPF_ERROR.INVALID_DOMAIN_SPEC],
    ['v=spf1 a:museum.', SPF_ERROR.INVALID_DOMAIN_SPEC],
    ['v=spf1 include:example.com/24', SPF_ERROR.INVALID_DOMAIN_SPEC],
    ['v=spf1 a/33', SPF_ERROR.INVALID_CIDR],
    ['v=spf1 a//129', SPF_ERROR.INVALID_CIDR],
    ['v=spf1 a/24/64', SPF_ERROR.INVALID_CIDR],
    ['v=spf1 ip4:1.2.3.4/032', SPF_ERROR.INVALID_CIDR],
    ['v=spf1 ip4:1.2.3', SPF_ERROR.INVALID_IP4],
    ['v=spf1 ip4:01.2.3.4', SPF_ERROR.INVALID_IP4],
    ['v=spf1 ip4:1.2.3.4//32', SPF_ERROR.INVALID_CIDR],
    ['v=spf1 ip6::CAFE::BABE', SPF_ERROR.INVALID_IP6],
    ['v=spf1 ip6:fe80::1%eth0', SPF_ERROR.INVALID_IP6],
    ['v=spf1 exists:%(ir).example.com', SPF_ERROR.INVALID_MACRO],
    ['v=spf1 a:%{a}.example.com', SPF_ERROR.INVALID_MACRO],
    ['v=spf1 -all exp=%{r}.example.com', SPF_ERROR.INVALID_MACRO],
    ['v=spf1 foo=%abc', SPF_ERROR.INVALID_MACRO],
    ['v=spf1 a:\u00efgarbage.example.net', SPF_ERROR.INVALID_MACRO],
    ['v=spf1 exp=a.example exp=b.example', SPF_ERROR.DUPLICATE_MODIFIER],
    ['v=spf1 redirect=a.example redirect=b.example', SPF_ERROR.DUPLICATE_MODIFIER],
    ['v=spf10 a', SPF_ERROR.NOT_SPF1],
  ])('%j is an error (%s)', (text, code) => {
    expect(errorsOf(text)).toContain(code);
  });

  it('reports every error with its term and offset', () => {
    const { errors } = parseSpfRecord('v=spf1 a/33 bogus -all');
    expect(errors).toEqual([
      expect.objectContaining({ code: SPF_ERROR.INVALID_CIDR, term: 'a/33', offset: 7 }),
      expect.objectContaining({ code: SPF_ERROR.UNKNOWN_MECHANISM, term: 'bogus', offset: 12 }),
    ]);
  });

  it('accepts unknown modifiers with a valid macro-string, even an empty one', () => {
    expect(parseSpfRecord('v=spf1 default=+ moo.cow-far_out=man:dog/cat empty= -all').errors).toEqual([]);
  });

  it('accepts toplabels with dashes and domain-specs ending in a macro', () => {
    expect(parseSpfRecord('v=spf1 a:foo.example.xn--zckzah exists:%{i}.%{l2r-}.user.%{d2} a:%{d}').errors).toEqual([]);
    // A trailing dot after a macro is not a domain-end ("." toplabel, or a macro-expand).
    expect(parseSpfRecord('v=spf1 a:%{d}.').errors).toHaveLength(1);
  });
});
