// The simulated world the engine's tests and benchmark use: @dv/world's default.json (acme.test,
// zen.dnsbl.test, RDAP) merged with world.json beside this file (this package's own scenarios).
// The MX hosts are left out: no tool here speaks SMTP.
import { fileURLToPath } from 'node:url';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle, type WorldInput } from '@dv/world';

export const MAILSEC_WORLD_PATH = fileURLToPath(new URL('./world.json', import.meta.url));

export function mailsecWorld(latencyMs = 0): WorldInput {
  const base = loadWorld(DEFAULT_WORLD_PATH);
  const extra = loadWorld(MAILSEC_WORLD_PATH);
  const seen = new Set<string>();
  const records = [...base.dns.records, ...extra.dns.records].filter((r) => {
    const { note: _note, ...rest } = r as typeof r & { note?: string };
    const key = JSON.stringify(rest);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    name: 'mailsec-tests',
    latencyMs,
    dns: {
      records,
      behaviours: { ...base.dns.behaviours, ...extra.dns.behaviours },
      signedZones: [...base.dns.signedZones, ...extra.dns.signedZones],
    },
    rdap: { domains: { ...base.rdap.domains, ...extra.rdap.domains }, ips: [...base.rdap.ips, ...extra.rdap.ips] },
  };
}

export function startMailsecWorld(latencyMs = 0): Promise<WorldHandle> {
  return startWorld(mailsecWorld(latencyMs));
}

/** The world's zen.dnsbl.test with Spamhaus ZEN semantics, and dbl.dnsbl.test with DBL semantics. */
export { DNSBL_TEST_ZONES } from './zones.ts';
