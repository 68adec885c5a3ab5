// The launcher's own certificate authority, made at first start under <localDir>/ca (key mode 600)
// and kept, so the local HTTPS webhook receiver has a certificate the services verify like any
// other: the launcher hands them a CA bundle through NODE_EXTRA_CA_CERTS (Node adds it to its
// built-in roots; nothing is turned off). The CA key never leaves the folder.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import selfsigned from 'selfsigned';

export interface LocalCa {
  cert: string;
  key: string;
  certFile: string;
}

const DAY_MS = 24 * 3_600_000;
/** The CA outlives many starts; a server certificate is made fresh at each start. */
export const LOCAL_CA_VALIDITY_DAYS = 3_650;
export const LOCAL_SERVER_CERT_VALIDITY_DAYS = 30;
/** Names the receiver's certificate covers: the loopback forms a webhook_url may use. */
const LOOPBACK_NAMES = [{ type: 2 as const, value: 'localhost' }, { type: 7 as const, ip: '127.0.0.1' }, { type: 7 as const, ip: '::1' }];

// EC keys: generation takes milliseconds where RSA takes seconds.
const KEY = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

export async function ensureLocalCa(dir: string): Promise<LocalCa> {
  const certFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'ca.key');
  if (existsSync(certFile) && existsSync(keyFile)) return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'dv local development CA' }], {
    ...KEY,
    notAfterDate: new Date(Date.now() + LOCAL_CA_VALIDITY_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, certFile };
}

/** A server certificate for localhost, 127.0.0.1 and ::1, signed by the local CA. */
export async function loopbackServerCert(ca: LocalCa): Promise<{ cert: string; key: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    ...KEY,
    notAfterDate: new Date(Date.now() + LOCAL_SERVER_CERT_VALIDITY_DAYS * DAY_MS),
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: LOOPBACK_NAMES },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * The file to pass as NODE_EXTRA_CA_CERTS: the local CA plus the CAs the user already trusts that
 * way (a TLS-inspecting proxy's, say), which the launcher must not drop.
 */
export function caBundleFile(dir: string, ca: LocalCa, userExtra: string | undefined): string {
  if (!userExtra || !existsSync(userExtra)) return ca.certFile;
  const file = join(dir, 'bundle.crt');
  writeFileSync(file, `${readFileSync(userExtra, 'utf8').trimEnd()}\n${ca.cert}`);
  return file;
}
