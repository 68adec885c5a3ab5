import { html, type VNode } from './html.ts';

// Charts drawn on the server as SVG: no script, no library, nothing to load. Colours come from CSS
// classes (`tone-*`), so both themes apply; every chart carries its title for screen readers and
// its numbers as a table beside it, for people who would rather read than look.

export interface Part {
  label: string;
  value: number;
  /** A CSS tone: ok, warn, bad, info, neutral, or a series number 1-6. */
  tone: string;
}

function percent(value: number, total: number): string {
  if (total <= 0) return '0%';
  const p = (100 * value) / total;
  return p > 0 && p < 1 ? '<1%' : `${Math.round(p)}%`;
}

/** One horizontal bar split by share, with a legend of counts and percentages. */
export function proportionBar(title: string, parts: readonly Part[]): VNode {
  const total = parts.reduce((s, p) => s + Math.max(0, p.value), 0);
  let x = 0;
  const rects = parts
    .filter((p) => p.value > 0)
    .map((p) => {
      const w = total > 0 ? (1000 * p.value) / total : 0;
      const r = html`<rect class=${`tone-${p.tone}`} x=${x.toFixed(2)} y="0" width=${w.toFixed(2)} height="24"><title>${`${p.label}: ${p.value.toLocaleString('en')} (${percent(p.value, total)})`}</title></rect>`;
      x += w;
      return r;
    });
  return html`<figure class="chart chart-proportion">
    <figcaption>${title}</figcaption>
    <svg viewBox="0 0 1000 24" preserveAspectRatio="none" role="img" aria-label=${`${title}: ${parts.map((p) => `${p.label} ${p.value}`).join(', ')}`} focusable="false">
      ${total > 0 ? rects : html`<rect class="tone-empty" x="0" y="0" width="1000" height="24" />`}
    </svg>
    <ul class="legend">
      ${parts.map((p) => html`<li><span class=${`swatch tone-${p.tone}`} aria-hidden="true"></span>${p.label} <strong>${p.value.toLocaleString('en')}</strong> <span class="muted">${percent(p.value, total)}</span></li>`)}
    </ul>
  </figure>`;
}

export interface Series {
  label: string;
  tone: string;
  values: readonly number[];
}

const CHART_W = 1000;
const CHART_H = 200;

/** Stacked columns over time (usage by day and status), with the data as a table under it. */
export function stackedColumns(title: string, labels: readonly string[], series: readonly Series[]): VNode {
  const totals = labels.map((_, i) => series.reduce((s, x) => s + Math.max(0, x.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = CHART_W / Math.max(1, labels.length);
  const bar = slot * 0.7;
  const columns = labels.map((label, i) => {
    let y = CHART_H;
    const stack = series.map((s) => {
      const h = (CHART_H * Math.max(0, s.values[i] ?? 0)) / max;
      y -= h;
      return h > 0 ? html`<rect class=${`tone-${s.tone}`} x=${(i * slot + (slot - bar) / 2).toFixed(2)} y=${y.toFixed(2)} width=${bar.toFixed(2)} height=${h.toFixed(2)}><title>${`${label} · ${s.label}: ${(s.values[i] ?? 0).toLocaleString('en')}`}</title></rect>` : null;
    });
    return html`<g>${stack}</g>`;
  });
  return html`<figure class="chart chart-columns">
    <figcaption>${title} <span class="muted">(highest day ${max.toLocaleString('en')})</span></figcaption>
    <svg viewBox=${`0 0 ${CHART_W} ${CHART_H}`} preserveAspectRatio="none" role="img" aria-label=${`${title}, ${labels.length} days; the table below has the numbers`} focusable="false">
      <line class="axis" x1="0" y1=${CHART_H} x2=${CHART_W} y2=${CHART_H} />
      ${columns}
    </svg>
    <ul class="legend">${series.map((s) => html`<li><span class=${`swatch tone-${s.tone}`} aria-hidden="true"></span>${s.label}</li>`)}</ul>
    <details class="chart-data">
      <summary>The numbers</summary>
      <div class="table-wrap"><table>
        <caption>${title}</caption>
        <thead><tr><th scope="col">Day</th>${series.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}<th scope="col" class="num">Total</th></tr></thead>
        <tbody>${labels.map((l, i) => html`<tr><th scope="row">${l}</th>${series.map((s) => html`<td class="num">${(s.values[i] ?? 0).toLocaleString('en')}</td>`)}<td class="num">${totals[i]!.toLocaleString('en')}</td></tr>`)}</tbody>
      </table></div>
    </details>
  </figure>`;
}

/** Done of total as the native progress element, with the numbers in words. */
export function progress(done: number, total: number, label: string): VNode {
  return html`<div class="progress">
    <progress max=${Math.max(total, 1)} value=${Math.min(done, total)} aria-label=${label}></progress>
    <span class="progress-text">${done.toLocaleString('en')} of ${total.toLocaleString('en')} (${percent(done, total)})</span>
  </div>`;
}
