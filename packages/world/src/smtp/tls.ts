// TEST-ONLY TLS identity for the simulated MX hosts: a throwaway self-signed certificate made once per
// process. Clients of the simulated internet must not verify it (rejectUnauthorized: false).
import tls from 'node:tls';

let context: Promise<tls.SecureContext> | undefined;

export function simulatedTlsContext(): Promise<tls.SecureContext> {
  context ??= createContext();
  return context;
}

async function createContext(): Promise<tls.SecureContext> {
  // Loaded on demand: the certificate library is slow to import and most worlds never need it.
  const { default: selfsigned } = await import('selfsigned');
  // An EC key makes generation take tens of milliseconds instead of the seconds RSA needs.
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'mx.simulated.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 7 * 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: '*.test' }, { type: 2, value: 'mx.simulated.test' }] }],
  });
  return tls.createSecureContext({ key: pems.private, cert: pems.cert });
}
