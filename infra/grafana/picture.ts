// What the dashboard query test and the docs picture script share: the settings that run the five
// services against the simulated world with fast timers, one dashboard's panel data read from
// Prometheus over a time range, and the screenshot of the static HTML view in headless Chromium.
import { chromium } from 'playwright-core';
import type { ServiceName } from '@dv/stack';
import { ensureCommand } from '@dv/stack';
import type { RunningPrometheus } from '../prometheus/server.ts';
import type { DashboardSpec } from './dashboards.ts';
import { substituteGrafanaVariables } from './promql.ts';
import { renderDashboardHtml, type PanelData } from './render.ts';

/**
 * Per-service settings on top of the stack's and the world's environment: lookup and the probe node
 * may reach the world's loopback targets, and the scheduler runs the fast test timers of
 * gateway/src/testing/live-stack.ts (the greylist ladder in seconds).
 */
export const WORLD_SERVICE_ENV: Readonly<Record<ServiceName, Readonly<Record<string, string>>>> = {
  gateway: {},
  lookup: { ALLOW_PRIVATE_TARGETS: 'true', DNSBL_ZONES: 'zen.dnsbl.test=zen.spamhaus.org' },
  'portfolio-scanner': {},
  scheduler: { BATCH_WINDOW_MS: '100', LOAD_INTERVAL_MS: '300', SWEEP_INTERVAL_MS: '300', PROBE_NODE_GONE_MS: '1500', DNS_TIMEOUT_MS: '500', GREYLIST_LADDER_SCALE: '0.01', WEBHOOK_LADDER_SCALE: '0.0001' },
  'probe-node': { PROBE_NODE_ID: 'dash-node', PROBE_SOURCE_IPS: '127.0.0.1', PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true', PROBE_HEARTBEAT_INTERVAL_MS: '300' },
};

/** Every panel of `d` as Prometheus answers its queries over [startS, endS], one point per `stepS`. */
export async function dashboardPanelData(prom: RunningPrometheus, d: DashboardSpec, startS: number, endS: number, stepS: number): Promise<PanelData[]> {
  const panels: PanelData[] = [];
  for (const p of d.rows.flatMap((r) => r.panels)) {
    const series: PanelData['series'] = [];
    for (const t of p.targets) {
      const r = await prom.queryRange(substituteGrafanaVariables(t.expr), startS, endS, stepS);
      for (const s of r.data?.result ?? []) {
        const name = (t.legend ?? '').replace(/\{\{(\w+)\}\}/g, (_m, l: string) => s.metric[l] ?? '');
        series.push({ name: name.trim(), points: (s.values ?? []).map(([ts, v]) => [ts, Number(v)] as [number, number]) });
      }
    }
    panels.push({ title: p.title, unit: p.unit, series });
  }
  return panels;
}

/** The panels as the static HTML view, screenshotted to a PNG at `out` (Debian `chromium`, installed when missing). */
export async function screenshotDashboard(title: string, panels: PanelData[], out: string, log: (m: string) => void): Promise<void> {
  const executablePath = ensureCommand('chromium', 'chromium', log);
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1270, height: 900 } });
    await page.setContent(renderDashboardHtml(title, panels));
    await page.screenshot({ path: out, fullPage: true });
  } finally {
    await browser.close();
  }
}
