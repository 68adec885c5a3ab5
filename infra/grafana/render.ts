// A static HTML view of one dashboard's panels from the data Prometheus returned (no Grafana
// needed), for the picture in docs/: each panel an SVG line chart with its legend.

export interface PanelData {
  title: string;
  unit: string;
  series: Array<{ name: string; points: Array<[number, number]> }>;
}

const COLOURS = ['#7eb26d', '#eab839', '#6ed0e0', '#ef843c', '#e24d42', '#1f78c1', '#ba43a9', '#705da0'];
const W = 380;
const H = 150;

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function fmt(v: number, unit: string): string {
  if (unit === 'percentunit') return `${(v * 100).toPrecision(3)}%`;
  const abs = Math.abs(v);
  const s = abs >= 1000 ? `${(v / 1000).toPrecision(3)}k` : abs >= 1 || abs === 0 ? v.toPrecision(3) : v.toPrecision(2);
  return unit === 's' ? `${s} s` : s;
}

/** The time axis' length: seconds for the test's short run, minutes for the docs picture's. */
function axisLength(s: number): string {
  return s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;
}

function chart(p: PanelData): string {
  const all = p.series.flatMap((s) => s.points).filter(([, v]) => Number.isFinite(v));
  if (all.length === 0) return `<svg width="${W}" height="${H}"><text x="${W / 2}" y="${H / 2}" fill="#888" text-anchor="middle">No data</text></svg>`;
  const t0 = Math.min(...all.map(([t]) => t));
  const t1 = Math.max(...all.map(([t]) => t), t0 + 1);
  const vMax = Math.max(...all.map(([, v]) => v), 0);
  const vMin = Math.min(...all.map(([, v]) => v), 0);
  const span = vMax - vMin || 1;
  const x = (t: number) => 40 + ((t - t0) / (t1 - t0)) * (W - 50);
  const y = (v: number) => H - 20 - ((v - vMin) / span) * (H - 30);
  const lines = p.series.map((s, i) => {
    const pts = s.points.filter(([, v]) => Number.isFinite(v)).map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`);
    return `<polyline fill="none" stroke="${COLOURS[i % COLOURS.length]}" stroke-width="1.5" points="${pts.join(' ')}"/>`;
  });
  const axis = `<line x1="40" y1="${H - 20}" x2="${W - 10}" y2="${H - 20}" stroke="#444"/><text x="36" y="${y(vMax) + 4}" fill="#aaa" font-size="10" text-anchor="end">${escape(fmt(vMax, p.unit))}</text><text x="36" y="${H - 16}" fill="#aaa" font-size="10" text-anchor="end">${escape(fmt(vMin, p.unit))}</text><text x="${W - 10}" y="${H - 4}" fill="#aaa" font-size="10" text-anchor="end">${axisLength(t1 - t0)}</text>`;
  return `<svg width="${W}" height="${H}">${axis}${lines.join('')}</svg>`;
}

export function renderDashboardHtml(title: string, panels: PanelData[]): string {
  const cells = panels.map((p) => {
    const legend = p.series
      .slice(0, 6)
      .map((s, i) => `<span style="color:${COLOURS[i % COLOURS.length]}">&#9632;</span> ${escape(s.name || 'value')} <b>${escape(fmt(s.points.at(-1)?.[1] ?? Number.NaN, p.unit))}</b>`)
      .join('<br>');
    return `<div class="panel"><h3>${escape(p.title)}</h3>${chart(p)}<div class="legend">${legend}</div></div>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body{background:#111217;color:#ccccdc;font-family:sans-serif;margin:12px;width:1240px}
h1{font-size:18px;font-weight:500} .grid{display:flex;flex-wrap:wrap;gap:8px}
.panel{background:#181b1f;border:1px solid #2c3235;padding:6px 8px;width:384px;height:250px;overflow:hidden}
h3{font-size:13px;margin:0 0 4px;font-weight:500} .legend{font-size:11px;line-height:15px}
</style></head><body><h1>${escape(title)}</h1><div class="grid">${cells.join('')}</div></body></html>`;
}
