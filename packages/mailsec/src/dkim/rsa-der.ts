// The modulus length of an RSA public key read straight from its DER, for the one shape nearly
// every DKIM key has: a SubjectPublicKeyInfo (rsaEncryption, NULL parameters) or a bare PKCS#1
// RSAPublicKey, canonical lengths, two positive INTEGERs, nothing after; and the keys neither
// encoding can read because they are cut short. crypto.createPublicKey costs ~120 us a key (more
// when it throws, as it does once per encoding for an unreadable key), and a scan reads every key
// it finds. Anything else returns undefined and goes to createPublicKey as before: this only
// answers where OpenSSL answers the same (rsa-der.test.ts compares the two on generated, truncated
// and mutated keys).

/** rsaEncryption (1.2.840.113549.1.1.1) as a DER OBJECT IDENTIFIER, then NULL. */
const RSA_ALGORITHM = Buffer.from([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]);

interface Tlv {
  /** Offset of the contents. */
  start: number;
  /** Offset just past the contents. */
  end: number;
}

/** One DER TLV of `tag` at `at`, its length in canonical (shortest) form, inside `limit`. */
function tlv(der: Uint8Array, at: number, tag: number, limit: number): Tlv | undefined {
  if (at + 2 > limit || der[at] !== tag) return undefined;
  const first = der[at + 1] as number;
  let length: number;
  let start: number;
  if (first < 0x80) {
    length = first;
    start = at + 2;
  } else if (first === 0x81) {
    if (at + 3 > limit) return undefined;
    length = der[at + 2] as number;
    if (length < 0x80) return undefined;
    start = at + 3;
  } else if (first === 0x82) {
    if (at + 4 > limit) return undefined;
    length = ((der[at + 2] as number) << 8) | (der[at + 3] as number);
    if (length < 0x100) return undefined;
    start = at + 4;
  } else {
    return undefined;
  }
  const end = start + length;
  return end <= limit ? { start, end } : undefined;
}

/** Bits of a positive, minimally encoded INTEGER's value; undefined otherwise. */
function positiveIntegerBits(der: Uint8Array, int: Tlv): number | undefined {
  const length = int.end - int.start;
  if (length === 0) return undefined;
  let first = der[int.start] as number;
  let start = int.start;
  if (first & 0x80) return undefined; // negative
  if (first === 0) {
    // A leading zero is only allowed (and required) before a byte with its high bit set.
    if (length === 1 || !((der[int.start + 1] as number) & 0x80)) return undefined;
    start++;
    first = der[start] as number;
  }
  return (int.end - start - 1) * 8 + (32 - Math.clz32(first));
}

/** RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } spanning [at, limit) exactly. */
function rsaPublicKeyBits(der: Uint8Array, at: number, limit: number): number | undefined {
  const seq = tlv(der, at, 0x30, limit);
  if (!seq || seq.end !== limit) return undefined;
  const n = tlv(der, seq.start, 0x02, seq.end);
  if (!n) return undefined;
  const e = tlv(der, n.end, 0x02, seq.end);
  if (!e || e.end !== seq.end) return undefined;
  const eBits = positiveIntegerBits(der, e);
  // An exponent of 1 or an even one is left to OpenSSL.
  if (eBits === undefined || eBits < 2 || !((der[e.end - 1] as number) & 1)) return undefined;
  return positiveIntegerBits(der, n);
}

/** Both encodings are a SEQUENCE: a key that does not start with one, or whose definite length runs past its end, is unreadable. */
function unreadable(der: Uint8Array): boolean {
  if (der.length < 2 || der[0] !== 0x30) return true;
  const first = der[1] as number;
  if (first < 0x80) return 2 + first > der.length;
  if (first === 0x81) return der.length < 3 || 3 + (der[2] as number) > der.length;
  if (first === 0x82) return der.length < 4 || 4 + (((der[2] as number) << 8) | (der[3] as number)) > der.length;
  return false;
}

/**
 * The RSA modulus length of `der` as SubjectPublicKeyInfo or PKCS#1; null when neither encoding
 * can read it (not a SEQUENCE, or cut short); undefined when it is not in the common canonical
 * shape (the caller then asks createPublicKey).
 */
export function rsaModulusBits(der: Uint8Array): number | null | undefined {
  if (unreadable(der)) return null;
  const outer = tlv(der, 0, 0x30, der.length);
  if (!outer || outer.end !== der.length) return undefined;
  // PKCS#1: the outer SEQUENCE starts with the modulus INTEGER.
  if (der[outer.start] === 0x02) return rsaPublicKeyBits(der, 0, der.length);
  const algEnd = outer.start + RSA_ALGORITHM.length;
  if (algEnd > outer.end) return undefined;
  for (let i = 0; i < RSA_ALGORITHM.length; i++) if (der[outer.start + i] !== RSA_ALGORITHM[i]) return undefined;
  const bits = tlv(der, algEnd, 0x03, outer.end);
  if (!bits || bits.end !== outer.end || bits.end - bits.start < 2 || der[bits.start] !== 0) return undefined;
  return rsaPublicKeyBits(der, bits.start + 1, bits.end);
}
