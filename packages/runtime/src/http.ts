import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Dependency } from './dependency.ts';
import type { Logger } from './logger.ts';
import { httpDurationObserver, readinessMetrics, routeTemplate, type ReadinessState } from './metrics.ts';
import { failureApiError } from './failure.ts';
import { ApiError, sendProblem } from './problem.ts';
import { DependencyGrace } from './readiness.ts';
import { REQUEST_ID_HEADER, newRequestId, saneRequestId, withRequestId } from './request-id.ts';
import { mountRouteErrors } from './route/mount.ts';

export interface HttpAppOptions {
  registry: Registry;
  log: Logger;
  dependencies: () => readonly Dependency[];
  isShuttingDown: () => boolean;
  /** Conditions in which the process is up but cannot do its work as usual (listed by /readyz; it stays 200). */
  degraded?: () => readonly string[];
  jsonLimitBytes?: number;
  /**
   * TRUSTED_PROXIES: the peers whose X-Forwarded-For express believes for req.ip (and req.protocol).
   * Empty or absent: none, req.ip is the socket address (a header anyone can send must not choose
   * whose per-IP limit is spent).
   */
  trustedProxies?: readonly string[];
  /** READINESS_GRACE_MS: how long a dependency may be down before /readyz fails (readiness.ts); default 0. */
  readinessGraceMs?: number;
}

/** express's `trust proxy` value for a TRUSTED_PROXIES list. */
export function trustProxySetting(trustedProxies: readonly string[] = []): false | string[] {
  return trustedProxies.length > 0 ? [...trustedProxies] : false;
}

/**
 * An express app with the operational endpoints every process serves: `/healthz` (the process
 * itself is alive; never a dependency), `/readyz` (200 unless a dependency has been down for
 * READINESS_GRACE_MS or the process is draining, else 503 naming what is down) and `/metrics` (Prometheus). Service routes go between `createHttpApp` and
 * `finishHttpApp`, which adds the problem+json 404 and error handlers.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxySetting(opts.trustedProxies));
  app.use(requestLifecycle(opts));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const grace = new DependencyGrace(opts.readinessGraceMs ?? 0);
  const readiness = async (): Promise<ReadinessState> => {
    const deps = opts.dependencies();
    const states = await Promise.all(deps.map(async (d) => [d.name, await d.isReady()] as const));
    const advisory = new Set(deps.filter((d) => d.advisory).map((d) => d.name));
    const judged = grace.judge(states.filter(([name]) => !advisory.has(name)));
    const advisoryDown = states.filter(([name, up]) => advisory.has(name) && !up).map(([name]) => name);
    return { ready: judged.failing.length === 0 && !opts.isShuttingDown(), dependencies: states, tolerating: judged.tolerated, advisoryDown };
  };
  const readinessMeter = readinessMetrics(opts.registry, readiness);

  app.get('/readyz', async (_req, res) => {
    const state = await readiness();
    readinessMeter.observe(state);
    const down = state.dependencies.filter(([name, up]) => !up && !state.advisoryDown?.includes(name)).map(([name]) => name);
    const body = {
      status: state.ready ? 'ready' : 'not_ready',
      dependencies: Object.fromEntries(state.dependencies.map(([name, up]) => [name, up ? 'up' : 'down'])),
      ...(down.length > 0 ? { down } : {}),
      // Down for less than READINESS_GRACE_MS: still ready (a shared backend's blip must not unready every pod at once).
      ...(state.tolerating && state.tolerating.length > 0 ? { tolerating: state.tolerating } : {}),
      ...(opts.isShuttingDown() ? { draining: true } : {}),
      ...degradedField([...(state.advisoryDown ?? []).map((name) => `${name} down`), ...(opts.degraded?.() ?? [])]),
    };
    res.status(body.status === 'ready' ? 200 : 503).json(body);
  });

  app.get('/metrics', async (_req, res) => {
    res.type(opts.registry.contentType).send(await opts.registry.metrics());
  });

  app.use(express.json({ limit: opts.jsonLimitBytes ?? 1_000_000, type: ['application/json', 'application/*+json'] }));
  return app;
}

export function finishHttpApp(app: Express, log: Logger): void {
  mountRouteErrors(app, {
    notFound: (req) => new ApiError('not_found', `No route for ${req.method} ${req.path}`),
    render: (err, req, res) => sendProblem(res, toApiError(err, req, log)),
  });
}

/** Maps anything thrown in a handler to the one error model; unknown errors are logged, never leaked. */
export function toApiError(err: unknown, req: Request, log: Logger): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.parse.failed') return new ApiError('invalid_request', 'The request body is not valid JSON.');
  if (e?.type === 'entity.too.large') return new ApiError('invalid_request', 'The request body is too large.');
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') return new ApiError('unsupported_media_type', 'Send the body as UTF-8 JSON.');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new ApiError('invalid_request', e.message ?? 'Bad request.');
  const temporary = failureApiError(err);
  if (temporary) {
    log.warn({ err: e?.message, name: (err as { name?: string })?.name, method: req.method, path: req.path }, 'dependency failure');
    return temporary;
  }
  log.error({ err, method: req.method, path: req.path }, 'unhandled error');
  return new ApiError('internal_error', 'An internal error occurred; retry with backoff.');
}

// Degraded is not unready: restarting or unrouting this process would not bring back what it lacks
// (e.g. the scheduler with no probe node alive), so /readyz names it and stays 200.
function degradedField(reasons: readonly string[]): { degraded?: readonly string[] } {
  return reasons.length > 0 ? { degraded: reasons } : {};
}

/** Polled by kubelets and Prometheus every few seconds: logged at debug, not info. */
const OPERATIONAL_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * What every request gets before any route, in one middleware with one listener (they were three,
 * each with its own closure, listener and router step, on every call): X-Request-Id (the caller's
 * when sane (saneRequestId), else a new one; echoed in the response, and the request's work runs
 * under it: request-id.ts), `Connection: close` while the process drains, and when the response is
 * written its duration in the histogram and one log line.
 */
export function requestLifecycle(opts: Pick<HttpAppOptions, 'registry' | 'log' | 'isShuttingDown'>): (req: Request, res: Response, next: NextFunction) => void {
  const observe = httpDurationObserver(opts.registry);
  const log = opts.log;
  return (req, res, next) => {
    const id = saneRequestId(req.headers['x-request-id']) ?? newRequestId();
    res.setHeader(REQUEST_ID_HEADER, id);
    if (opts.isShuttingDown()) res.setHeader('Connection', 'close');
    const t0 = performance.now();
    res.once('finish', () => {
      const ms = performance.now() - t0;
      observe(req, res, ms / 1000);
      const level = OPERATIONAL_PATHS.has(req.path) ? 'debug' : 'info';
      // Below LOG_LEVEL the line is not even built (every request passes here).
      if (!log.isLevelEnabled(level)) return;
      log[level]({ request_id: id, method: req.method, route: routeTemplate(req), status: res.statusCode, ms: Math.round(ms) }, 'http request');
    });
    withRequestId(id, next);
  };
}
