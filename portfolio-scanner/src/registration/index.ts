// Registration data's surface, and a small runner a worker process starts: it takes due domains
// (claimed), looks them up a few at a time (the per-RDAP-server budgets set the pace), and when
// nothing is due gives watched domains without a record a pending one.
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { RdapBootstrap, TOOL_DEFAULTS, WHOIS_SERVERS, type Resolver } from '@dv/mailsec';
import type { Logger } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { createRegistrationMetrics } from './metrics.ts';
import { RdapServerBudgets } from './rdap-budget.ts';
import { backfillRegistrations, dueRegistrations, refreshRegistration, type RegistrationDeps } from './refresh.ts';

export { refreshRegistration, dueRegistrations, backfillRegistrations, type RegistrationDeps } from './refresh.ts';
export { RdapServerBudgets, RdapDeferred, retryAfterS } from './rdap-budget.ts';
export { LOOKUP_STATUSES, failedLookup, type LookupStatus, type RdapAnswer } from './lookup-status.ts';
export { whoisRecord, nextFetchAt, eppStatus, type RegistrationSchedule } from './record.ts';
export { createRegistrationMetrics, REGISTRATION_METRICS, type RegistrationMetrics } from './metrics.ts';

export interface RegistrationConfig {
  RDAP_BOOTSTRAP_URL?: string | undefined;
  PORTFOLIO_RDAP_SERVER_QPS: number;
  PORTFOLIO_WHOIS_REFRESH_INTERVAL_S: number;
  PORTFOLIO_WHOIS_NEAR_EXPIRY_DAYS: number;
  PORTFOLIO_WHOIS_NEAR_EXPIRY_INTERVAL_S: number;
}

/** The refresher's dependencies from the service configuration; `resolver` resolves port-43 hosts. */
export function registrationDeps(config: RegistrationConfig, deps: { resolver: Resolver; registry?: Registry }): RegistrationDeps {
  const d = PORTFOLIO_DEFAULTS;
  const metrics = deps.registry ? createRegistrationMetrics(deps.registry) : undefined;
  return {
    whois: {
      resolver: deps.resolver,
      bootstrap: new RdapBootstrap({
        ...(config.RDAP_BOOTSTRAP_URL ? { url: config.RDAP_BOOTSTRAP_URL } : {}),
        refreshMs: TOOL_DEFAULTS.bootstrapRefreshMs,
        limits: { timeoutMs: TOOL_DEFAULTS.rdapTimeoutMs, maxBytes: TOOL_DEFAULTS.bootstrapMaxResponseBytes },
      }),
      servers: WHOIS_SERVERS,
      whoisPort: TOOL_DEFAULTS.whoisPort,
      rdap: { timeoutMs: TOOL_DEFAULTS.rdapTimeoutMs, maxBytes: TOOL_DEFAULTS.rdapMaxResponseBytes, maxRedirects: TOOL_DEFAULTS.rdapMaxRedirects },
      whois: { timeoutMs: TOOL_DEFAULTS.whoisTimeoutMs, maxBytes: TOOL_DEFAULTS.whoisMaxResponseBytes },
    },
    budgets: new RdapServerBudgets({
      serverQps: config.PORTFOLIO_RDAP_SERVER_QPS,
      maxWaitMs: d.rdapMaxWaitMs,
      defaultBackoffS: d.rdapDefaultBackoffS,
      maxBackoffS: d.rdapMaxBackoffS,
      ...(metrics ? { metrics } : {}),
    }),
    schedule: {
      refreshIntervalS: config.PORTFOLIO_WHOIS_REFRESH_INTERVAL_S,
      nearExpiryDays: config.PORTFOLIO_WHOIS_NEAR_EXPIRY_DAYS,
      nearExpiryIntervalS: config.PORTFOLIO_WHOIS_NEAR_EXPIRY_INTERVAL_S,
    },
    failureRetryS: d.whoisFailureRetryS,
    ...(metrics ? { metrics } : {}),
  };
}

export class RegistrationRunner {
  readonly #db: Db;
  readonly #deps: RegistrationDeps;
  readonly #log: Logger | undefined;
  readonly #concurrency: number;
  readonly #idlePollMs: number;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #cursor: string | null = null;

  constructor(db: Db, deps: RegistrationDeps, options: { log?: Logger; concurrency?: number; idlePollMs?: number } = {}) {
    this.#db = db;
    this.#deps = deps;
    this.#log = options.log;
    this.#concurrency = options.concurrency ?? PORTFOLIO_DEFAULTS.whoisConcurrency;
    this.#idlePollMs = options.idlePollMs ?? PORTFOLIO_DEFAULTS.whoisIdlePollMs;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Finishes the lookups in hand (their domains stay claimed otherwise and come back after the claim). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        const now = (this.#deps.now ?? (() => new Date()))();
        const due = await dueRegistrations(this.#db, now, this.#concurrency * 4);
        if (due.length > 0) {
          await this.#work(due);
          continue;
        }
        const { next, added } = await backfillRegistrations(this.#db, this.#cursor, 1000, now);
        this.#cursor = next;
        if (added > 0 || next !== null) continue;
      } catch (err) {
        this.#log?.warn({ err: (err as Error).message }, 'registration refresh pass failed');
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.#idlePollMs);
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  async #work(domains: string[]): Promise<void> {
    let i = 0;
    const lane = async () => {
      while (!this.#stopped && i < domains.length) {
        const domain = domains[i++] as string;
        try {
          await refreshRegistration(this.#db, domain, this.#deps);
        } catch (err) {
          this.#log?.warn({ domain, err: (err as Error).message }, 'registration refresh failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, domains.length) }, lane));
  }
}
