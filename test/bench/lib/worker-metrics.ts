// Figures from the portfolio workers' Prometheus text (`/metrics`), summed over the workers: the
// bench reads each worker's text once per question and parses it here.
import { readFileSync } from 'node:fs';

/** Each worker's metrics text ('' for one that did not answer). */
export async function scrapeWorkers(urls: readonly string[]): Promise<string[]> {
  return Promise.all(urls.map((u) => fetch(`${u}/metrics`).then((r) => r.text()).catch(() => '')));
}

/** Scans stored (`portfolio_scans_total{outcome="stored"}`), summed. */
export function storedScans(texts: readonly string[]): number {
  return texts.reduce((n, text) => n + Number(/^portfolio_scans_total\{[^}]*outcome="stored"[^}]*\} ([\d.e+]+)$/m.exec(text)?.[1] ?? 0), 0);
}

/** A histogram (one `held_by` label, or all series) summed: its mean, count and the share in each bucket. */
export function histogram(texts: readonly string[], metric: string, heldBy?: string): { mean: number; n: number; shares: string } {
  let sum = 0;
  let n = 0;
  const buckets = new Map<string, number>();
  const line = new RegExp(`^${metric}_(sum|count|bucket)(?:\\{([^}]*)\\})? ([\\d.e+-]+)$`, 'gm');
  for (const text of texts) {
    for (const m of text.matchAll(line)) {
      if (heldBy && !(m[2] ?? '').includes(`held_by="${heldBy}"`)) continue;
      const le = /le="([^"]+)"/.exec(m[2] ?? '')?.[1];
      if (m[1] === 'sum') sum += Number(m[3]);
      else if (m[1] === 'count') n += Number(m[3]);
      else if (le) buckets.set(le, (buckets.get(le) ?? 0) + Number(m[3]));
    }
  }
  const shares = [...buckets].filter(([le]) => le !== '+Inf').map(([le, c]) => `<=${le}s ${Math.round((100 * c) / Math.max(1, n))}%`).join(', ');
  return { mean: sum / Math.max(1, n), n, shares };
}

/** DNS queries the workers sent that ended with `rcode` (`portfolio_dns_queries_total`, every operator), summed. */
export function queriesWithRcode(texts: readonly string[], rcode: string): number {
  const line = /^portfolio_dns_queries_total\{([^}]*)\} ([\d.e+]+)$/gm;
  let n = 0;
  for (const text of texts) for (const m of text.matchAll(line)) if ((m[1] ?? '').includes(`rcode="${rcode}"`)) n += Number(m[2]);
  return n;
}

/** The box's UDP datagrams dropped for a full socket receive buffer so far (/proc/net/snmp RcvbufErrors; null off Linux). */
export function udpReceiveBufferErrors(): number | null {
  try {
    const rows = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((l) => l.startsWith('Udp: '));
    const [names, values] = rows.map((r) => r.split(/\s+/).slice(1));
    const i = names?.indexOf('RcvbufErrors') ?? -1;
    return i < 0 ? null : Number(values?.[i]);
  } catch {
    return null;
  }
}
