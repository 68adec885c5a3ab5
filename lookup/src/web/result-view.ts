import { facts, html, type VNode } from '@dv/web';
import type { LookupEnvelope } from '../envelope.ts';

// What a tool page shows of a lookup: the plain-English summary, whether it was live (counted) or
// cached (free, and how old), what is left of today's allowance, the ready-to-quote report, and
// the REST call's JSON one click away. The same envelope the REST call returns.

/** "45 seconds", "3 minutes", "2 hours". */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [n, unit] = s < 60 ? [s, 'second'] : s < 3_600 ? [Math.round(s / 60), 'minute'] : [Math.round(s / 3_600), 'hour'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

function cacheText(env: LookupEnvelope, nowMs: number): string {
  if (env.cache === 'live') return 'Looked up just now (counted as one lookup).';
  const at = Date.parse(String(env.data.meta.timestamp));
  return Number.isFinite(at) ? `From the cache: looked up ${age(nowMs - at)} ago (not counted).` : 'From the cache (not counted).';
}

export function resultView(env: LookupEnvelope, jsonHref: string, nowMs: number): VNode {
  return html`<p class="lead" role="status">${env.summary}</p>
    ${facts([
      ['Answer', cacheText(env, nowMs)],
      ['Left today', `${env.usage.remaining_today} of ${env.usage.limit} lookups`],
    ])}
    <h2>Report</h2>
    <pre class="report">${env.report}</pre>
    <p><a href=${jsonHref}>The same result as JSON</a> (the REST call; a cached answer is free)</p>`;
}
