import type { Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Metric names of the runtime package in one place. Labels stay bounded: route templates, never
// raw paths, ids or addresses.
export const RUNTIME_METRICS = {
  httpDuration: 'http_request_duration_seconds',
  dependencyUp: 'dependency_up',
  ready: 'service_ready',
  readinessChanges: 'service_readiness_changes_total',
  natsPermissionViolations: 'nats_permission_violations_total',
} as const;

/** What `/readyz` answers: ready or not, and each dependency's state. */
export interface ReadinessState {
  ready: boolean;
  dependencies: ReadonlyArray<readonly [name: string, up: boolean]>;
  /** Down, but for less than READINESS_GRACE_MS: not (yet) counted against readiness. */
  tolerating?: readonly string[];
  /** Advisory dependencies that are down (Dependency.advisory): named, never counted against readiness. */
  advisoryDown?: readonly string[];
}

/**
 * `service_ready`, `dependency_up{dependency}` and `service_readiness_changes_total`, so alerts can
 * see a server that is unreachable from a service and readiness that flaps. The gauges are refreshed
 * at each scrape (one check shared by all of them); the counter also counts changes seen by
 * `/readyz` requests between scrapes (the kubelet's view), through the returned `observe`.
 */
export function readinessMetrics(registry: Registry, check: () => Promise<ReadinessState>): { observe(state: ReadinessState): void } {
  let last: boolean | undefined;
  let inflight: Promise<void> | undefined;
  const observe = (state: ReadinessState): void => {
    if (last !== undefined && last !== state.ready) changes.inc();
    last = state.ready;
    ready.set(state.ready ? 1 : 0);
    for (const [name, up] of state.dependencies) dependencyUp.set({ dependency: name }, up ? 1 : 0);
  };
  // Every metric's collect runs in the same scrape; they share one check instead of one each.
  const refresh = (): Promise<void> => (inflight ??= check()
      .then(observe)
      .finally(() => {
        inflight = undefined;
      }));
  const ready = new Gauge({ name: RUNTIME_METRICS.ready, help: '1 while /readyz answers 200 (every dependency up, not draining), else 0', registers: [registry], collect: refresh });
  const dependencyUp = new Gauge({ name: RUNTIME_METRICS.dependencyUp, help: '1 while the server this process depends on answers its readiness check, else 0', labelNames: ['dependency'] as const, registers: [registry], collect: refresh });
  const changes = new Counter({ name: RUNTIME_METRICS.readinessChanges, help: 'Changes of readiness (ready to not ready or back) seen by /readyz or a scrape', registers: [registry], collect: refresh });
  return { observe };
}

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The histogram of every request's duration by method, route template and status, as a function
 * the request middleware (http.ts `requestLifecycle`) calls once the response is written.
 */
export function httpDurationObserver(registry: Registry): (req: Request, res: Response, seconds: number) => void {
  const histogram = new Histogram({
    name: RUNTIME_METRICS.httpDuration,
    help: 'HTTP request duration in seconds, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return (req, res, seconds) => {
    histogram.observe({ method: req.method, route: routeTemplate(req), status_code: String(res.statusCode) }, seconds);
  };
}

/** The matched route's template (`/v1/jobs/:id`), or `unmatched` so unknown paths cannot explode label cardinality. */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}
