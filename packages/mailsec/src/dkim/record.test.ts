import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dkimProvider } from './providers.ts';
import { isDkimRecordText, parseDkimRecord } from './record.ts';
import { DKIM_SELECTORS } from './selectors.ts';

function rsaSpki(bits: number): string {
  return generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

describe('parseDkimRecord', () => {
  it('reads the RSA modulus size from the SubjectPublicKeyInfo', () => {
    const k = parseDkimRecord(`v=DKIM1; k=rsa; p=${rsaSpki(2048)}`);
    expect(k).toMatchObject({ keyType: 'rsa', bits: 2048, revoked: false, errors: [], warnings: [] });
  });

  it('accepts a bare PKCS#1 key and flags small keys', () => {
    const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'pkcs1', format: 'der' }).toString('base64');
    const k = parseDkimRecord(`p=${pkcs1}`);
    expect(k.bits).toBe(1024);
    expect(k.warnings.join()).toMatch(/2048/);
    expect(parseDkimRecord(`v=DKIM1; p=${rsaSpki(512)}`).errors.join()).toMatch(/under 1024/);
  });

  it('reads ed25519 raw keys, revoked keys, testing mode and garbage', () => {
    const raw = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64');
    expect(parseDkimRecord(`v=DKIM1; k=ed25519; p=${raw}`)).toMatchObject({ keyType: 'ed25519', bits: 256 });
    expect(parseDkimRecord('v=DKIM1; k=rsa; p=')).toMatchObject({ revoked: true, bits: null, errors: [] });
    expect(parseDkimRecord(`v=DKIM1; t=y; p=${rsaSpki(1024)}`).testing).toBe(true);
    expect(parseDkimRecord('v=DKIM1; p=bm90IGEga2V5').errors.join()).toMatch(/not a readable/);
    expect(parseDkimRecord('v=DKIM1; k=rsa').errors.join()).toMatch(/missing/);
  });

  it('recognizes DKIM record text', () => {
    expect(isDkimRecordText('v=DKIM1; p=abc')).toBe(true);
    expect(isDkimRecordText('k=rsa; p=abc')).toBe(true);
    expect(isDkimRecordText('v=spf1 -all')).toBe(false);
  });
});

describe('DKIM data', () => {
  it('sweeps at least 200 distinct, valid selectors', () => {
    expect(DKIM_SELECTORS.length).toBeGreaterThanOrEqual(200);
    expect(new Set(DKIM_SELECTORS).size).toBe(DKIM_SELECTORS.length);
    for (const s of ['google', 'selector1', 'selector2', 'k1', 's1', 's2', 'default', 'mandrill', 'zendesk1', 'everlytickey1', 'pm', 'sig1', 'protonmail', 'fm1', 'hs1', 'cm']) {
      expect(DKIM_SELECTORS).toContain(s);
    }
  });

  it.each([
    ['selector1', ['selector1-contoso-com._domainkey.contoso.onmicrosoft.com'], 'Microsoft 365', 'cname'],
    ['abc', ['abc.dkim.amazonses.com'], 'Amazon SES', 'cname'],
    ['s1', ['s1.domainkey.u1.wl.sendgrid.net'], 'SendGrid', 'cname'],
    ['k1', [], 'Mailchimp', 'selector'],
    ['google', [], 'Google Workspace', 'selector'],
  ])('%s via %j -> %s', (selector, cnames, provider, evidence) => {
    expect(dkimProvider(selector, cnames)).toEqual({ provider, evidence });
  });
});
