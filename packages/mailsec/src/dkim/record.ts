// DKIM key records (RFC 6376 3.6.1, RFC 8463 for ed25519): tags, key type and size. Pure.
import { createPublicKey } from 'node:crypto';
import { rsaModulusBits } from './rsa-der.ts';

export interface DkimKey {
  /** k= (default rsa). */
  keyType: string;
  /** Key size in bits: the RSA modulus length, 256 for ed25519; null when the key cannot be read. */
  bits: number | null;
  /** p= is empty: the key has been revoked (RFC 6376 3.6.1). */
  revoked: boolean;
  /** t=y: the domain is testing DKIM; verifiers must not treat failures differently. */
  testing: boolean;
  /** Every tag as written (lowercased names). */
  tags: Record<string, string>;
  errors: string[];
  warnings: string[];
}

/** True when a TXT string looks like a DKIM key record (v=DKIM1 first, or a bare p= record). */
export function isDkimRecordText(text: string): boolean {
  return /^\s*v\s*=\s*DKIM1\s*(?:;|$)/i.test(text) || /(?:^|;)\s*p\s*=/i.test(text);
}

export function parseDkimRecord(text: string): DkimKey {
  const tags: Record<string, string> = {};
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) {
      errors.push(`"${trimmed.slice(0, 40)}" is not a tag=value pair`);
      continue;
    }
    const name = trimmed.slice(0, eq).trim().toLowerCase();
    if (Object.hasOwn(tags, name)) errors.push(`tag "${name}" appears more than once`);
    else tags[name] = trimmed.slice(eq + 1).replace(/\s+/g, '');
  }
  if (tags.v !== undefined && tags.v !== 'DKIM1') errors.push(`v=${tags.v}: must be DKIM1`);
  const keyType = (tags.k ?? 'rsa').toLowerCase();
  const p = tags.p;
  const testing = (tags.t ?? '').split(':').includes('y');
  if (p === undefined) {
    errors.push('the required "p" (public key) tag is missing');
    return { keyType, bits: null, revoked: false, testing, tags, errors, warnings };
  }
  if (p === '') return { keyType, bits: null, revoked: true, testing, tags, errors, warnings };
  const bits = keyBits(keyType, p);
  if (bits === null) errors.push(`the p= value is not a readable ${keyType} public key`);
  else if (keyType === 'rsa' && bits < 1024) errors.push(`${bits}-bit RSA key: verifiers reject keys under 1024 bits (RFC 8301)`);
  else if (keyType === 'rsa' && bits < 2048) warnings.push(`${bits}-bit RSA key: 2048 bits is the recommended size`);
  if (keyType !== 'rsa' && keyType !== 'ed25519') warnings.push(`k=${keyType} is not a key type verifiers know`);
  if (testing) warnings.push('t=y: the domain is in DKIM testing mode');
  return { keyType, bits, revoked: false, testing, tags, errors, warnings };
}

/**
 * RSA keys are published as base64 SubjectPublicKeyInfo (some senders publish a bare PKCS#1
 * RSAPublicKey, which verifiers also accept); ed25519 keys are the raw 32-byte key (RFC 8463).
 */
export function keyBits(keyType: string, base64: string): number | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  const der = Buffer.from(base64, 'base64');
  if (keyType === 'ed25519') return der.length === 32 ? 256 : null;
  // The common shape without OpenSSL (rsa-der.ts); the rest as before.
  const fast = rsaModulusBits(der);
  if (fast !== undefined) return fast;
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      const key = createPublicKey({ key: der, format: 'der', type });
      const details = key.asymmetricKeyDetails;
      if (key.asymmetricKeyType === 'rsa' && details?.modulusLength) return details.modulusLength;
      return null;
    } catch {
      // try the next encoding
    }
  }
  return null;
}
