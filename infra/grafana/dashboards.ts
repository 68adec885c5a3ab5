// The Grafana dashboards as data: `node infra/grafana/generate.ts` writes them to
// infra/grafana/dashboards/*.json (provisioned from ConfigMaps), and test/dashboards.test.ts runs
// every query against a real Prometheus. Queries prefer the recording rules of
// infra/prometheus/rules/recording.yml so panels and alerts read the same figures.

export interface PanelSpec {
  title: string;
  kind: 'timeseries' | 'stat';
  unit: string;
  targets: Array<{ expr: string; legend?: string }>;
  description?: string;
}

export interface DashboardSpec {
  file: string;
  uid: string;
  title: string;
  description: string;
  rows: Array<{ title: string; panels: PanelSpec[] }>;
}

const RI = '$__rate_interval';
const OUR_JOBS = 'job=~"gateway|lookup|portfolio-scanner|scheduler|probe-node"';

const ts = (title: string, unit: string, targets: PanelSpec['targets'], description?: string): PanelSpec => ({ title, kind: 'timeseries', unit, targets, description });
const stat = (title: string, unit: string, targets: PanelSpec['targets'], description?: string): PanelSpec => ({ title, kind: 'stat', unit, targets, description });
const q = (expr: string, legend?: string) => ({ expr, legend });

export const DASHBOARDS: DashboardSpec[] = [
  {
    file: 'overview.json',
    uid: 'dv-overview',
    title: 'Deliverability: overview',
    description: 'One screen per concern; each panel is the input of an alert in docs/operations.md.',
    rows: [
      {
        title: 'Verification',
        panels: [
          stat('Load level (0 normal, 1 busy, 2 saturated)', 'none', [q('max(scheduler_load_level)')]),
          stat('No probe capacity', 'bool', [q('max(scheduler_no_probe_capacity)')], 'ProbePoolEmpty'),
          stat('Probe sessions in use', 'percentunit', [q('scheduler:probe_capacity_in_use:ratio')], 'ProbePoolSaturated'),
          stat('Queue depth', 'short', [q('priority:scheduler_queue_depth:max', '{{priority}}')]),
          ts('Results stored per second', 'ops', [q('scheduler:verdicts:rate5m', 'results/s'), q('max(scheduler_throughput_items_per_second)', 'throughput (10 s)')]),
          ts('Expected seconds (ETA)', 's', [q('what:scheduler_expected_seconds:max', '{{what}}')], 'EtaGrowing'),
        ],
      },
      {
        title: 'Services',
        panels: [
          stat('Scrape targets up', 'short', [q(`sum by (job) (up{${OUR_JOBS}})`, '{{job}}')], 'ServiceScrapeFailing'),
          stat('Ready replicas', 'short', [q('sum by (service) (service_ready)', '{{service}}')]),
          stat('Dependencies (min over replicas)', 'bool', [q('min by (dependency) (dependency_up)', '{{dependency}}')], 'DependencyUnreachable'),
          ts('5xx ratio', 'percentunit', [q('service:http_requests_5xx:ratio_rate5m', '{{service}}')], 'HttpErrorRatioHigh'),
          ts('p99 request duration (long-polls excluded)', 's', [q('service:http_request_duration_seconds:p99_5m', '{{service}}')], 'HttpLatencyP99High'),
        ],
      },
    ],
  },
  {
    file: 'verification-pipeline.json',
    uid: 'dv-verification-pipeline',
    title: 'Deliverability: verification pipeline',
    description: 'Intake at the gateway, the scheduler queue and dispatch, verdicts, ETAs, refunds and completion webhooks.',
    rows: [
      {
        title: 'Intake (gateway)',
        panels: [
          ts('Jobs created', 'ops', [q(`sum by (kind, mode) (rate(gateway_jobs_created_total[${RI}]))`, '{{kind}} {{mode}}')]),
          ts('Items accepted', 'ops', [q(`sum by (kind, mode) (rate(gateway_items_accepted_total[${RI}]))`, '{{kind}} {{mode}}')]),
          ts('Credits charged', 'ops', [q(`sum(rate(gateway_credits_charged_total[${RI}]))`, 'credits/s')]),
          ts('Problem responses by code', 'ops', [q(`sum by (code) (rate(gateway_errors_total[${RI}]))`, '{{code}}')]),
          ts('Long-polls waiting', 'short', [q('sum(gateway_long_polls_waiting)', 'waiting')]),
          ts('Idempotent replays', 'ops', [q(`sum(rate(gateway_idempotent_replays_total[${RI}]))`, 'replays/s')]),
        ],
      },
      {
        title: 'Queue and dispatch (scheduler)',
        panels: [
          ts('Queue depth (pending + parked)', 'short', [q('priority:scheduler_queue_depth:max', '{{priority}}')], 'QueueGrowing'),
          ts('Items in flight', 'short', [q('sum by (instance) (scheduler_items_in_flight)', '{{instance}}')]),
          ts('Dispatch lag (intake to session request)', 's', [
            q('priority:scheduler_dispatch_latency_seconds:p95_5m', 'p95 {{priority}}'),
            q(`histogram_quantile(0.5, sum by (priority, le) (rate(scheduler_dispatch_latency_seconds_bucket[${RI}])))`, 'p50 {{priority}}'),
          ], 'DispatchLagHigh'),
          ts('Load level', 'none', [q('max(scheduler_load_level)', 'level')], 'SchedulerLoadSaturated'),
          ts('Expected seconds (ETA)', 's', [q('what:scheduler_expected_seconds:max', '{{what}}')], 'EtaGrowing'),
          ts('Throughput', 'ops', [q('max(scheduler_throughput_items_per_second)', 'items/s')]),
        ],
      },
      {
        title: 'Verdicts and completion',
        panels: [
          ts('Results by status', 'ops', [q('status:scheduler_verdicts:rate5m', '{{status}}')]),
          ts('Results by sub-status', 'ops', [q(`sum by (sub_status) (rate(scheduler_verdicts_total[${RI}]))`, '{{sub_status}}')]),
          ts('Items refunded by the deadline sweep', 'ops', [q(`sum(rate(scheduler_refunded_items_total[${RI}]))`, 'items/s')]),
          ts('Webhook attempts by outcome', 'ops', [q(`sum by (outcome) (rate(notify_webhook_attempts_total[${RI}]))`, '{{outcome}}')]),
          ts('Webhook failure ratio', 'percentunit', [q('notify:webhook_attempts_failed:ratio_rate15m', 'failed')], 'WebhookDeliveriesFailing'),
          ts('Webhook attempt duration p95', 's', [q(`histogram_quantile(0.95, sum by (outcome, le) (rate(notify_webhook_attempt_duration_seconds_bucket[${RI}])))`, '{{outcome}}')]),
          ts('Webhook deliveries abandoned', 'ops', [q(`sum(rate(notify_webhook_gave_up_total[${RI}]))`, 'gave up/s')], 'WebhookDeliveriesAbandoned'),
        ],
      },
    ],
  },
  {
    file: 'probe-fleet.json',
    uid: 'dv-probe-fleet',
    title: 'Deliverability: probe fleet and providers',
    description: 'Probe sessions, SMTP reply classes, pauses and IP blocks per provider, greylisting and politeness.',
    rows: [
      {
        title: 'Fleet',
        panels: [
          ts('Probe capacity (sessions)', 'short', [q('max by (kind) (scheduler_probe_capacity)', '{{kind}}')], 'ProbePoolSaturated'),
          ts('Sessions in flight per node', 'short', [q('sum by (instance) (probe_sessions_in_flight)', '{{instance}}')]),
          ts('Sessions by provider and outcome', 'ops', [q(`sum by (provider, outcome) (rate(probe_sessions_total[${RI}]))`, '{{provider}} {{outcome}}')]),
          ts('Session duration p95', 's', [q(`histogram_quantile(0.95, sum by (outcome, le) (rate(probe_session_duration_seconds_bucket[${RI}])))`, '{{outcome}}')]),
          ts('Connections opened by provider', 'ops', [q(`sum by (provider) (rate(probe_connections_total[${RI}]))`, '{{provider}}')]),
          ts('Session replies at the scheduler by outcome', 'ops', [q(`sum by (outcome) (rate(scheduler_probe_sessions_total[${RI}]))`, '{{outcome}}')]),
        ],
      },
      {
        title: 'Providers',
        panels: [
          ts('Reply classes', 'ops', [q(`sum by (class) (rate(probe_replies_total[${RI}]))`, '{{class}}')]),
          ts('Replies by provider and stage', 'ops', [q(`sum by (provider, stage) (rate(probe_replies_total[${RI}]))`, '{{provider}} {{stage}}')]),
          ts('Provider pauses (30 min)', 'short', [q('provider:scheduler_provider_pauses:increase30m', '{{provider}}')], 'ProviderPausedOften'),
          ts('Source IPs blocked (1 h)', 'short', [q('provider:scheduler_ip_blocks:increase1h', '{{provider}}')], 'SourceIpsBlocked'),
          ts('Greylist parks by provider', 'ops', [q(`sum by (provider) (rate(scheduler_greylist_retries_total[${RI}]))`, '{{provider}}')], 'GreylistBacklog'),
          ts('Politeness waits by reason', 'ops', [q(`sum by (reason) (rate(scheduler_politeness_waits_total[${RI}]))`, '{{reason}}')]),
          ts('Batches sent to another node', 'ops', [q(`sum by (reason) (rate(scheduler_probe_redispatches_total[${RI}]))`, '{{reason}}')]),
        ],
      },
    ],
  },
  {
    file: 'lookup.json',
    uid: 'dv-lookup',
    title: 'Deliverability: lookup',
    description: 'The free single-domain lookup service: REST and MCP lookups, cache, quotas, engine time and free keys.',
    rows: [
      {
        title: 'Lookups',
        panels: [
          ts('Lookups by tool', 'ops', [q(`sum by (tool) (rate(lookup_lookups_total[${RI}]))`, '{{tool}}')]),
          ts('Lookups by surface and outcome', 'ops', [q(`sum by (surface, outcome) (rate(lookup_lookups_total[${RI}]))`, '{{surface}} {{outcome}}')]),
          ts('Cache hits by tool', 'ops', [q(`sum by (tool) (rate(lookup_cache_hits_total[${RI}]))`, '{{tool}}')]),
          ts('Quota refusals by tier', 'ops', [q(`sum by (tier) (rate(lookup_quota_refusals_total[${RI}]))`, '{{tier}}')]),
          ts('Engine duration p95 by tool', 's', [q(`histogram_quantile(0.95, sum by (tool, le) (rate(lookup_engine_duration_seconds_bucket[${RI}])))`, '{{tool}}')]),
        ],
      },
      {
        title: 'Keys and HTTP',
        panels: [
          ts('Free-key requests by outcome', 'ops', [q(`sum by (outcome) (rate(lookup_key_requests_total[${RI}]))`, '{{outcome}}')]),
          ts('Free keys issued', 'ops', [q(`sum(rate(lookup_keys_issued_total[${RI}]))`, 'keys/s')]),
          ts('Requests by route and status', 'reqps', [q(`sum by (route, status_code) (rate(http_request_duration_seconds_count{service="lookup",route!~"/metrics|/healthz|/readyz"}[${RI}]))`, '{{route}} {{status_code}}')]),
        ],
      },
    ],
  },
  {
    file: 'portfolio-scanning.json',
    uid: 'dv-portfolio-scanning',
    title: 'Deliverability: portfolio scanning',
    description: 'Portfolio scan workers: scans, queue lag, overdue domains, changes found, DNS and RDAP traffic, geolocation.',
    rows: [
      {
        title: 'Scans',
        panels: [
          ts('Scans by outcome', 'ops', [q(`sum by (outcome) (rate(portfolio_scans_total[${RI}]))`, '{{outcome}}')]),
          ts('Scan duration p95', 's', [q(`histogram_quantile(0.95, sum by (le) (rate(portfolio_scan_duration_seconds_bucket[${RI}])))`, 'p95')]),
          ts('Queue lag by priority', 's', [q('max by (priority) (portfolio_queue_lag_seconds)', '{{priority}}')], 'PortfolioQueueLagging'),
          stat('Domains overdue', 'short', [q('max(portfolio_domains_overdue)')], 'PortfolioScansOverdue'),
          ts('Changes found by field', 'ops', [q(`sum by (field) (rate(portfolio_changes_total[${RI}]))`, '{{field}}')]),
        ],
      },
      {
        title: 'Upstreams',
        panels: [
          ts('DNS queries by rcode', 'ops', [q(`sum by (rcode) (rate(portfolio_dns_queries_total[${RI}]))`, '{{rcode}}')]),
          ts('DNS queries by operator', 'ops', [q(`sum by (operator) (rate(portfolio_dns_queries_total[${RI}]))`, '{{operator}}')]),
          // Seconds of waiting per second: which budget (a listed operator, the small hosts', the worker's) holds the scans (none: always 0).
          ts('DNS budget wait by budget', 's', [q(`sum by (held_by) (rate(portfolio_dns_budget_wait_seconds_sum[${RI}]))`, '{{held_by}}')]),
          ts('RDAP requests by server and status', 'ops', [q(`sum by (server, status) (rate(portfolio_rdap_requests_total[${RI}]))`, '{{server}} {{status}}')]),
          ts('Geolocation lookups by result', 'ops', [q(`sum by (result) (rate(portfolio_geo_lookups_total[${RI}]))`, '{{result}}')]),
          ts('Requests by route and status', 'reqps', [q(`sum by (route, status_code) (rate(http_request_duration_seconds_count{service="portfolio-scanner",route!="/metrics"}[${RI}]))`, '{{route}} {{status_code}}')]),
        ],
      },
    ],
  },
  {
    file: 'http-services.json',
    uid: 'dv-http-services',
    title: 'Deliverability: HTTP services',
    description: 'Every process: requests, errors, latency by route, readiness and dependencies, CPU, memory and event-loop lag.',
    rows: [
      {
        title: 'Requests',
        panels: [
          ts('Requests per second', 'reqps', [q('service:http_requests:rate5m', '{{service}}')]),
          ts('5xx ratio', 'percentunit', [q('service:http_requests_5xx:ratio_rate5m', '{{service}}')], 'HttpErrorRatioHigh'),
          ts('p99 by service (long-polls excluded)', 's', [q('service:http_request_duration_seconds:p99_5m', '{{service}}')], 'HttpLatencyP99High'),
          ts('p99 by route', 's', [q(`histogram_quantile(0.99, sum by (service, route, le) (rate(http_request_duration_seconds_bucket{service=~"$service",route!~"/metrics|/healthz|/readyz"}[${RI}])))`, '{{service}} {{route}}')]),
          ts('Requests by status', 'reqps', [q(`sum by (service, status_code) (rate(http_request_duration_seconds_count{service=~"$service"}[${RI}]))`, '{{service}} {{status_code}}')]),
        ],
      },
      {
        title: 'Readiness and dependencies',
        panels: [
          ts('Ready (per instance)', 'bool', [q('service_ready{service=~"$service"}', '{{service}} {{instance}}')]),
          ts('Dependencies up (per instance)', 'bool', [q('dependency_up{service=~"$service"}', '{{service}} {{instance}} {{dependency}}')], 'DependencyUnreachable'),
          ts('Readiness changes (15 min)', 'short', [q('increase(service_readiness_changes_total{service=~"$service"}[15m])', '{{service}} {{instance}}')], 'ReadinessFlapping'),
          ts('Scrape up', 'bool', [q(`up{${OUR_JOBS}}`, '{{job}} {{instance}}')], 'ServiceScrapeFailing'),
        ],
      },
      {
        title: 'Process',
        panels: [
          ts('CPU (cores)', 'short', [q(`sum by (service, instance) (rate(process_cpu_seconds_total{service=~"$service"}[${RI}]))`, '{{service}} {{instance}}')]),
          ts('Resident memory', 'bytes', [q('process_resident_memory_bytes{service=~"$service"}', '{{service}} {{instance}}')]),
          ts('Heap used', 'bytes', [q('sum by (service, instance) (nodejs_heap_size_used_bytes{service=~"$service"})', '{{service}} {{instance}}')]),
          ts('Event-loop lag p99', 's', [q('nodejs_eventloop_lag_p99_seconds{service=~"$service"}', '{{service}} {{instance}}')]),
        ],
      },
    ],
  },
];

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const WIDTH = 24;

/** The Grafana JSON model (schemaVersion 39) of one dashboard: rows of panels, 3 or 4 a line. */
export function renderDashboard(d: DashboardSpec): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const row of d.rows) {
    panels.push({ id: id++, type: 'row', title: row.title, collapsed: false, gridPos: { x: 0, y, w: WIDTH, h: 1 }, panels: [] });
    y += 1;
    const perLine = row.panels.length % 4 === 0 ? 4 : 3;
    const w = WIDTH / perLine;
    row.panels.forEach((p, i) => {
      const x = (i % perLine) * w;
      if (i > 0 && i % perLine === 0) y += 8;
      panels.push({
        id: id++,
        type: p.kind,
        title: p.title,
        ...(p.description ? { description: `Alert: ${p.description} (docs/operations.md#${p.description.toLowerCase()})` } : {}),
        datasource: DATASOURCE,
        gridPos: { x, y, w, h: 8 },
        fieldConfig: { defaults: { unit: p.unit, ...(p.kind === 'timeseries' ? { custom: { lineWidth: 1, fillOpacity: 10 } } : {}) }, overrides: [] },
        options: p.kind === 'stat' ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area' } : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
        targets: p.targets.map((t, j) => ({ refId: String.fromCharCode(65 + j), datasource: DATASOURCE, expr: t.expr, ...(t.legend ? { legendFormat: t.legend } : {}), range: true })),
      });
    });
    y += 8;
  }
  const usesService = d.rows.some((r) => r.panels.some((p) => p.targets.some((t) => t.expr.includes('$service'))));
  return {
    uid: d.uid,
    title: d.title,
    description: d.description,
    tags: ['deliverability'],
    editable: true,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'utc',
    graphTooltip: 1,
    templating: {
      list: [
        { name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus', current: {}, hide: 0 },
        ...(usesService
          ? [{ name: 'service', label: 'Service', type: 'query', datasource: DATASOURCE, query: { query: 'label_values(http_request_duration_seconds_count, service)', refId: 'service' }, refresh: 2, includeAll: true, multi: true, allValue: '.*', current: { text: 'All', value: '$__all' } }]
          : []),
      ],
    },
    annotations: { list: [] },
    panels,
  };
}

/** Every dashboard file's exact text, as generate.ts writes it. */
export function dashboardFiles(): Array<{ file: string; text: string }> {
  return DASHBOARDS.map((d) => ({ file: d.file, text: `${JSON.stringify(renderDashboard(d), null, 2)}\n` }));
}
