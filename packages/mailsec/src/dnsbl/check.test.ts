import { describe, expect, it } from 'vitest';
import { interpretDnsblAnswer } from './check.ts';
import { DNSBL_ZONES } from './zones.ts';

const zone = (name: string) => {
  const z = DNSBL_ZONES.find((r) => r.zone === name);
  if (!z) throw new Error(name);
  return z;
};

describe('interpretDnsblAnswer', () => {
  const zen = zone('zen.spamhaus.org');

  it('maps return codes to their meaning', () => {
    expect(interpretDnsblAnswer(zen, [])).toMatchObject({ outcome: 'not_listed' });
    expect(interpretDnsblAnswer(zen, ['127.0.0.2'])).toMatchObject({ outcome: 'listed', meanings: [expect.stringMatching(/^SBL/)], policyOnly: false });
    expect(interpretDnsblAnswer(zen, ['127.0.0.4'])).toMatchObject({ outcome: 'listed', meanings: [expect.stringMatching(/^XBL/)] });
    expect(interpretDnsblAnswer(zen, ['127.0.0.11'])).toMatchObject({ outcome: 'listed', policyOnly: true });
    expect(interpretDnsblAnswer(zen, ['127.0.0.99'])).toMatchObject({ outcome: 'listed', meanings: ['listed (code 127.0.0.99)'] });
  });

  it.each(['127.255.255.252', '127.255.255.254', '127.255.255.255'])('reports the refusal %s as unusable, never listed', (code) => {
    const r = interpretDnsblAnswer(zen, [code]);
    expect(r.outcome).toBe('unusable');
    expect(r.detail).toMatch(/refused/);
  });

  it('treats answers outside 127.0.0.0/8 as unusable', () => {
    expect(interpretDnsblAnswer(zone('bl.spamcop.net'), ['198.51.100.7']).outcome).toBe('unusable');
  });

  it('decodes bitmask lists and their refusal code', () => {
    const surbl = zone('multi.surbl.org');
    expect(interpretDnsblAnswer(surbl, ['127.0.0.24']).meanings).toEqual(['PH: phishing', 'MW: malware']);
    expect(interpretDnsblAnswer(surbl, ['127.0.0.1']).outcome).toBe('unusable');
  });

  it('has no SORBS zone (closed in 2024) and covers ip and domain lists', () => {
    expect(DNSBL_ZONES.some((z) => /sorbs/i.test(z.zone))).toBe(false);
    expect(DNSBL_ZONES.filter((z) => z.kind === 'domain').length).toBeGreaterThanOrEqual(2);
    expect(DNSBL_ZONES.map((z) => z.zone)).toEqual(expect.arrayContaining(['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org', 'dnsbl-1.uceprotect.net', 'psbl.surriel.com', 'dbl.spamhaus.org', 'multi.surbl.org']));
  });
});
