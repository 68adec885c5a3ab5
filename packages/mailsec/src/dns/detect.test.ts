import { describe, expect, it } from 'vitest';
import { detectTechnology, spfTargets } from './detect.ts';
import { dnssecStatus } from './dnssec.ts';
import { emailGateway } from './gateway.ts';
import { reverseName } from './reverse.ts';
import type { ResolveResult } from '../resolver/types.ts';

describe('detectTechnology', () => {
  it('finds verification tokens, senders, DNS hosting, CDNs and CAs, each once', () => {
    const found = detectTechnology({
      TXT: ['google-site-verification=x', 'MS=ms1234', 'facebook-domain-verification=y', 'docusign=z', 'stripe-verification=w', 'google-site-verification=again'],
      SPF: ['_spf.google.com', 'sendgrid.net'],
      NS: ['dana.ns.cloudflare.com', 'ns-1.awsdns-01.org'],
      CNAME: ['d111.cloudfront.net'],
      CAA: ['letsencrypt.org'],
    });
    const names = found.map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining(['Google (Search Console / Workspace)', 'Microsoft 365', 'Meta (Facebook)', 'DocuSign', 'Stripe', 'Google Workspace', 'SendGrid', 'Cloudflare DNS', 'AWS Route 53', 'Amazon CloudFront', "Let's Encrypt"]),
    );
    expect(names.filter((n) => n === 'Google (Search Console / Workspace)')).toHaveLength(1);
    expect(found.find((f) => f.name === 'AWS Route 53')?.evidence).toBe('ns-1.awsdns-01.org');
  });

  it('does not match look-alike names', () => {
    expect(detectTechnology({ NS: ['ns.cloudflare.com.evil.example'], TXT: ['my-google-site-verification=x'] })).toEqual([]);
  });

  it('extracts include and redirect targets from SPF', () => {
    expect(spfTargets('v=spf1 include:_spf.google.com include:%{d}.x.example redirect=_spf.example.com')).toEqual(['_spf.google.com', '_spf.example.com']);
  });
});

describe('emailGateway', () => {
  const mx = (priority: number, exchange: string) => ({ type: 'MX' as const, name: 'd', ttl: 1, priority, exchange });
  it('names the provider of the most preferred MX', () => {
    expect(emailGateway([mx(20, 'alt1.aspmx.l.google.com'), mx(10, 'eu-smtp-inbound-1.mimecast.com')])).toMatchObject({ id: 'mimecast', kind: 'security_gateway' });
    expect(emailGateway([mx(0, 'contoso-com.mail.protection.outlook.com')])?.id).toBe('microsoft_365');
    expect(emailGateway([mx(0, '.')])?.kind).toBe('null_mx');
    expect(emailGateway([])).toBeNull();
  });
});

describe('dnssecStatus', () => {
  const res = (rcode: ResolveResult['rcode'], authenticated: boolean, n = 0) =>
    ({ name: 'd', type: 'DNSKEY', rcode, answers: Array.from({ length: n }, () => ({ type: 'DNSKEY' })), cnames: [], authenticated, ttl: 1, fromCache: false }) as unknown as ResolveResult<'DNSKEY'>;
  it.each([
    [res('NOERROR', true, 1), 'signed'],
    [res('NOERROR', false, 1), 'dnskey_present'],
    [res('NODATA', false), 'unsigned'],
    [res('SERVFAIL', false), 'unknown'],
  ])('%#', (dnskey, status) => expect(dnssecStatus(dnskey, []).status).toBe(status));
  it('trusts the AD bit on any answer', () => expect(dnssecStatus(res('NODATA', false), [{ rcode: 'NOERROR', authenticated: true }]).status).toBe('signed'));
});

describe('reverseName', () => {
  it('builds in-addr.arpa and ip6.arpa names', () => {
    expect(reverseName('192.0.2.10')).toBe('10.2.0.192.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe(`1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
});
