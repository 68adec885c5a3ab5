import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rsaModulusBits } from './rsa-der.ts';

/** What keyBits read before the fast path: createPublicKey as SPKI, then as PKCS#1. */
function viaOpenSsl(der: Buffer): number | null {
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      const key = createPublicKey({ key: der, format: 'der', type });
      return key.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? null) : null;
    } catch {
      // next encoding
    }
  }
  return null;
}

/** A small deterministic generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KEYS = [512, 1024, 1025, 2048, 3072, 4096].flatMap((modulusLength) => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return [publicKey.export({ type: 'spki', format: 'der' }), publicKey.export({ type: 'pkcs1', format: 'der' })];
});

describe('rsaModulusBits', () => {
  it('reads the modulus length of SPKI and PKCS#1 keys as createPublicKey does', () => {
    for (const der of KEYS) expect(rsaModulusBits(der)).toBe(viaOpenSsl(der));
  });

  it('says null, as createPublicKey would, for what is not a SEQUENCE or is cut short', () => {
    const cases = [
      ...KEYS.map((k) => k.subarray(0, k.length - 1)),
      ...KEYS.map((k) => k.subarray(0, 20)),
      // The benchmark world's keys: a SPKI header cut short.
      Buffer.from('MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC1', 'base64'),
      Buffer.alloc(0),
      Buffer.from([0x02, 0x01, 0x01]),
      Buffer.from('not a key'),
    ];
    for (const der of cases) {
      expect(viaOpenSsl(der)).toBeNull();
      expect(rsaModulusBits(der)).toBeNull();
    }
  });

  it('leaves to createPublicKey what is not a canonical RSA key: trailing bytes, other algorithms', () => {
    const { publicKey: ec } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const { publicKey: ed } = generateKeyPairSync('ed25519');
    const cases = [
      ...KEYS.map((k) => Buffer.concat([k, Buffer.from([0])])),
      ec.export({ type: 'spki', format: 'der' }),
      ed.export({ type: 'spki', format: 'der' }),
      Buffer.from([0x30, 0x00]),
    ];
    for (const der of cases) expect(rsaModulusBits(der)).toBeUndefined();
  });

  it('never answers differently from createPublicKey on mutated and cut keys', () => {
    const next = prng(12);
    let answered = 0;
    for (let i = 0; i < 4000; i++) {
      let der = Buffer.from(KEYS[Math.floor(next() * KEYS.length)] as Buffer);
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        // Mostly the header bytes, where the structure lives.
        const at = next() < 0.8 ? Math.floor(next() * Math.min(40, der.length)) : Math.floor(next() * der.length);
        der[at] = Math.floor(next() * 256);
      }
      if (next() < 0.2) der = der.subarray(0, Math.floor(next() * der.length));
      const fast = rsaModulusBits(der);
      if (fast === undefined) continue;
      answered++;
      expect(fast, der.toString('base64')).toBe(viaOpenSsl(der));
    }
    expect(answered).toBeGreaterThan(100);
  });
});
