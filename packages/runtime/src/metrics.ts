import type { NextFunction, Request, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Metric names of the runtime package in one place. Labels stay bounded: route templates, never
// raw paths, ids or addresses.
export const RUNTIME_METRICS = {
  httpDuration: 'http_request_duration_seconds',
  dependencyUp: 'dependency_up',
} as const;

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Express middleware observing every request's duration by method, route template and status. */
export function httpMetrics(registry: Registry): (req: Request, res: Response, next: NextFunction) => void {
  const histogram = new Histogram({
    name: RUNTIME_METRICS.httpDuration,
    help: 'HTTP request duration in seconds, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = histogram.startTimer();
    res.on('finish', () => {
      end({ method: req.method, route: routeTemplate(req), status_code: String(res.statusCode) });
    });
    next();
  };
}

/** The matched route's template (`/v1/jobs/:id`), or `unmatched` so unknown paths cannot explode label cardinality. */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}
