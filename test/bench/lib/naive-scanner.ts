// The straightforward scanner users compare with: node's dns.promises.Resolver, one
// domain's lookups one after another, `parallel` domains at once, no cache of its own. It asks
// what the scan asks on a rescan (apex records, www, BIMI, SRV, DMARC, the SPF include tree, MX
// host addresses, PTRs, the vendor DKIM selectors) so that the two do the same work per domain.
import { promises as dns } from 'node:dns';
import { SRV_SERVICES } from '@dv/mailsec';
import { VENDOR_DKIM_SELECTORS } from '@dv/portfolio-scanner/bench';

async function quiet<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch {
    return null;
  }
}

async function scanOne(r: dns.Resolver, domain: string): Promise<number> {
  let n = 0;
  const ask = <T>(p: Promise<T>) => {
    n++;
    return quiet(p);
  };
  const mx = (await ask(r.resolveMx(domain))) ?? [];
  const txt = (await ask(r.resolveTxt(domain))) ?? [];
  await ask(r.resolveTxt(`_dmarc.${domain}`));
  const a = (await ask(r.resolve4(domain))) ?? [];
  await ask(r.resolve6(domain));
  await ask(r.resolveNs(domain));
  await ask(r.resolveSoa(domain));
  await ask(r.resolveCaa(domain));
  await ask(r.resolveCname(`www.${domain}`));
  await ask(r.resolveTxt(`default._bimi.${domain}`));
  for (const srv of SRV_SERVICES) await ask(r.resolveSrv(`${srv}.${domain}`));
  // SPF: follow include: terms, at most 10 lookups (RFC 7208).
  const queue = txt.map((t) => t.join('')).filter((t) => t.startsWith('v=spf1')).flatMap(includes);
  for (let i = 0; i < queue.length && i < 10; i++) {
    const inner = (await ask(r.resolveTxt(queue[i]!))) ?? [];
    queue.push(...inner.map((t) => t.join('')).filter((t) => t.startsWith('v=spf1')).flatMap(includes));
  }
  for (const m of mx.sort((x, y) => x.priority - y.priority).slice(0, 3)) {
    await ask(r.resolve4(m.exchange));
    await ask(r.resolve6(m.exchange));
  }
  for (const ip of a.slice(0, 4)) await ask(r.reverse(ip));
  for (const sel of VENDOR_DKIM_SELECTORS) await ask(r.resolveTxt(`${sel}._domainkey.${domain}`));
  return n;
}

function includes(spf: string): string[] {
  return spf.split(/\s+/).filter((t) => /^[+~?-]?include:/.test(t) || t.startsWith('redirect=')).map((t) => t.replace(/^[+~?-]?(include:|redirect=)/, ''));
}

/** Scans `domains` (taken in order) for at most `maxS` seconds; domains/s and queries per domain. */
export async function naiveScan(server: string, domains: readonly string[], parallel: number, maxS: number): Promise<{ domainsPerS: number; queriesPerDomain: number; scanned: number }> {
  const r = new dns.Resolver({ timeout: 2000, tries: 2 });
  r.setServers([server]);
  const start = performance.now();
  const endAt = start + maxS * 1000;
  let next = 0;
  let scanned = 0;
  let queries = 0;
  const worker = async () => {
    while (next < domains.length && performance.now() < endAt) {
      // Not `queries += await ...`: that reads `queries` before the await and loses other workers' counts.
      const n = await scanOne(r, domains[next++]!);
      queries += n;
      scanned++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const s = (performance.now() - start) / 1000;
  return { domainsPerS: scanned / s, queriesPerDomain: queries / Math.max(1, scanned), scanned };
}
