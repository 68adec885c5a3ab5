import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// API key format (verification spec, Authentication item 3): `dv_live_<prefix>_<secret>` or
// `dv_test_<prefix>_<secret>`. `dv_live_<prefix>` is public (logs, GET /v1/account); the secret
// carries ~190 bits, so a plain SHA-256 is the right stored form (no slow hash needed for
// high-entropy keys, and every request can afford it).
export const KEY_MODES = { live: 'dv_live', sandbox: 'dv_test' } as const;
export type KeyMode = keyof typeof KEY_MODES;

const PREFIX_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const SECRET_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const PREFIX_LEN = 10;
const SECRET_LEN = 32;
const KEY_PATTERN = /^(dv_live|dv_test)_([a-z2-9]{10})_([A-Za-z2-9]{32})$/;

export function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character uniformly likely.
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out.push(alphabet[byte % alphabet.length] as string);
    }
  }
  return out.join('');
}

export interface GeneratedKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** `dv_live_<prefix>`: stored, shown, logged. */
  prefix: string;
  hash: string;
}

export function generateKey(mode: KeyMode): GeneratedKey {
  const prefix = `${KEY_MODES[mode]}_${randomString(PREFIX_ALPHABET, PREFIX_LEN)}`;
  const key = `${prefix}_${randomString(SECRET_ALPHABET, SECRET_LEN)}`;
  return { key, prefix, hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ParsedKey {
  mode: KeyMode;
  prefix: string;
}

/** Parses a presented key's shape without touching storage; null for anything malformed. */
export function parseKey(key: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(key);
  if (!m) return null;
  return { mode: m[1] === 'dv_live' ? 'live' : 'sandbox', prefix: `${m[1]}_${m[2]}` };
}

/** Constant-time comparison of a presented key against a stored hash. */
export function keyMatches(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashKey(key), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
