// The only HTTP client of the engine: GET a JSON document from an allowed host, with a deadline, a
// size cap and redirects checked against the same allowlist (an RDAP server may redirect, e.g.
// ARIN to RIPE for an address it does not hold; it may not send us anywhere else).

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchOptions extends FetchLimits {
  /** `host[:port]` values requests may go to. */
  allowedHosts: ReadonlySet<string>;
  maxRedirects: number;
}

export type FetchOutcome =
  | { ok: true; status: number; url: string; body: unknown }
  // retryAfter: the Retry-After header of an HTTP error answer as sent (RFC 9110 10.2.3), so a caller can back off (429, 503).
  | { ok: false; status?: number; url: string; error: string; body?: unknown; retryAfter?: string };

export async function fetchJson(url: string, options: FetchOptions): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let hop = 0; hop <= options.maxRedirects; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(current);
    } catch {
      return { ok: false, url: current, error: 'malformed URL' };
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { ok: false, url: current, error: `scheme ${parsed.protocol} not allowed` };
    if (!options.allowedHosts.has(parsed.host)) return { ok: false, url: current, error: `host ${parsed.host} is not a configured RDAP host` };
    let res: Response;
    try {
      res = await fetch(parsed, { redirect: 'manual', signal: deadline, headers: { accept: 'application/rdap+json, application/json' } });
    } catch (err) {
      const timedOut = deadline.aborted;
      return { ok: false, url: current, error: timedOut ? `no answer within ${options.timeoutMs} ms` : `request failed: ${(err as Error).message}` };
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel();
      // A Location that is not a URL is the server's failure, not ours to throw.
      const next = URL.parse(res.headers.get('location') as string, parsed.href);
      if (!next) return { ok: false, status: res.status, url: current, error: 'redirect to a malformed URL' };
      current = next.href;
      continue;
    }
    const retry = res.ok ? null : res.headers.get('retry-after');
    const retryAfter = retry === null ? {} : { retryAfter: retry };
    const text = await readCapped(res, options.maxBytes, deadline);
    if (text === null) return { ok: false, status: res.status, url: current, error: deadline.aborted ? `no answer within ${options.timeoutMs} ms` : `answer larger than ${options.maxBytes} bytes`, ...retryAfter };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, status: res.status, url: current, error: 'answer is not JSON', ...retryAfter };
    }
    if (!res.ok) return { ok: false, status: res.status, url: current, error: `HTTP ${res.status}`, body, ...retryAfter };
    return { ok: true, status: res.status, url: current, body };
  }
  return { ok: false, url: current, error: `more than ${options.maxRedirects} redirects` };
}

/** The body as text, or null when it exceeds maxBytes or the deadline passes while reading. */
async function readCapped(res: Response, maxBytes: number, deadline: AbortSignal): Promise<string | null> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes || deadline.aborted) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  return Buffer.concat(chunks).toString('utf8');
}
