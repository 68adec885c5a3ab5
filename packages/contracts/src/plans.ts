// Plans and their API limits, from the verification spec's Limits table. Plans below Pro exist so an
// account can be on them, but they are refused API access (403 plan_not_entitled).
export const PLAN_NAMES = ['free', 'starter', 'growth', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  emailsPerDay: number;
  emailsPerJob: number;
  concurrentJobs: number;
  singleChecksInFlight: number;
}

export interface Plan {
  name: PlanName;
  apiAccess: boolean;
  limits: PlanLimits;
}

const NO_API: PlanLimits = { requestsPerMinute: 0, emailsPerDay: 0, emailsPerJob: 0, concurrentJobs: 0, singleChecksInFlight: 0 };

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { name: 'free', apiAccess: false, limits: NO_API },
  starter: { name: 'starter', apiAccess: false, limits: NO_API },
  growth: { name: 'growth', apiAccess: false, limits: NO_API },
  pro: { name: 'pro', apiAccess: true, limits: { requestsPerMinute: 60, emailsPerDay: 5_000, emailsPerJob: 5_000, concurrentJobs: 2, singleChecksInFlight: 200 } },
  business: { name: 'business', apiAccess: true, limits: { requestsPerMinute: 120, emailsPerDay: 10_000, emailsPerJob: 10_000, concurrentJobs: 3, singleChecksInFlight: 200 } },
  enterprise: { name: 'enterprise', apiAccess: true, limits: { requestsPerMinute: 240, emailsPerDay: 20_000, emailsPerJob: 25_000, concurrentJobs: 5, singleChecksInFlight: 200 } },
};

/**
 * What the verification console lets an account without API access run (the API refuses these
 * plans with 403; the console works on every plan). Plans with API access use their API limits in
 * the console too, so a list costs and counts the same wherever it is started.
 */
export const CONSOLE_LIMITS: Readonly<Record<'free' | 'starter' | 'growth', PlanLimits>> = {
  free: { requestsPerMinute: 60, emailsPerDay: 500, emailsPerJob: 500, concurrentJobs: 1, singleChecksInFlight: 2 },
  starter: { requestsPerMinute: 60, emailsPerDay: 5_000, emailsPerJob: 5_000, concurrentJobs: 1, singleChecksInFlight: 5 },
  growth: { requestsPerMinute: 60, emailsPerDay: 10_000, emailsPerJob: 10_000, concurrentJobs: 2, singleChecksInFlight: 10 },
};

/** The limits that hold for an account's work started in the console. */
export function consoleLimits(plan: PlanName, accountLimits: PlanLimits): PlanLimits {
  return PLANS[plan].apiAccess ? accountLimits : CONSOLE_LIMITS[plan as keyof typeof CONSOLE_LIMITS];
}

/**
 * The Free plan's monthly allowance: on the first console visit of each calendar month (UTC) the
 * balance of a Free account is topped up to this many credits, never above (ledger id
 * `grant:<account>:free:<YYYY-MM>`, so a month's top-up happens once whatever the races).
 */
export const FREE_PLAN_MONTHLY_CREDITS = 100;

/** What each plan gives, in words, for the console's plan page. */
export const PLAN_SUMMARIES: Readonly<Record<PlanName, string>> = {
  free: '100 credits every month, lists up to 500 addresses in the console, no API access.',
  starter: 'Credits bought as you go, lists up to 5,000 addresses in the console, no API access.',
  growth: 'Credits bought as you go, lists up to 10,000 addresses in the console, two at once, no API access.',
  pro: 'The REST API, MCP and the console: 60 requests a minute, 5,000 addresses a day and per job, 2 jobs at once.',
  business: 'The REST API, MCP and the console: 120 requests a minute, 10,000 addresses a day and per job, 3 jobs at once.',
  enterprise: 'The REST API, MCP and the console: 240 requests a minute, 20,000 addresses a day, 25,000 per job, 5 jobs at once.',
};

/** Active API keys an account may hold at once (spec: Authentication item 4). */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 10;

// Portfolio API plans (docs/portfolio-scanner.md "API"), apart from the verification
// plans above: an account holds one of each (Account.portfolio_plan). A plan without API access
// exists so an account can be on it and be refused (403 api_access_not_included).
export const PORTFOLIO_PLAN_NAMES = ['business', 'enterprise', 'enterprise_max', 'enterprise_max_premium'] as const;
export type PortfolioPlanName = (typeof PORTFOLIO_PLAN_NAMES)[number];

export interface PortfolioPlan {
  name: PortfolioPlanName;
  /** Shown in errors and the API root. */
  label: string;
  apiAccess: boolean;
  /** Per API key, per minute. */
  requestsPerMinute: number;
  /** Per account, per UTC day; calls, not rows. */
  callsPerDay: number;
  /** GET /api/v1/domains/ lists the whole active corpus, not only the account's domains. */
  globalDomainView: boolean;
  /** Domains in the account's list (active and inactive; removed ones do not count): each active one is rescanned daily for everyone's workers. */
  maxDomains: number;
  /** Exports of the account queued or in progress at once. */
  maxPendingExports: number;
  /** Exports the account keeps (any status, until they expire), their files included. */
  maxStoredExports: number;
  /** Bytes of the account's stored export files together. */
  maxExportStorageBytes: number;
  /** Rows (domains read) of one csv, zip or diff export; pdf tables have their own cut. */
  maxExportRows: number;
}

// The stored-data limits keep one tenant from pushing everyone's rescans behind (domains) or
// filling MongoDB (exports); every limit below is enforced atomically under concurrency
// (docs/portfolio-scanner.md "Plan limits").
const GIB = 1024 ** 3;

export const PORTFOLIO_PLANS: Readonly<Record<PortfolioPlanName, PortfolioPlan>> = {
  business: { name: 'business', label: 'Business', apiAccess: false, requestsPerMinute: 0, callsPerDay: 0, globalDomainView: false, maxDomains: 1_000, maxPendingExports: 2, maxStoredExports: 10, maxExportStorageBytes: GIB / 4, maxExportRows: 10_000 },
  enterprise: { name: 'enterprise', label: 'Enterprise', apiAccess: true, requestsPerMinute: 100, callsPerDay: 10_000, globalDomainView: false, maxDomains: 10_000, maxPendingExports: 3, maxStoredExports: 20, maxExportStorageBytes: GIB, maxExportRows: 20_000 },
  enterprise_max: { name: 'enterprise_max', label: 'Enterprise Max', apiAccess: true, requestsPerMinute: 500, callsPerDay: 50_000, globalDomainView: false, maxDomains: 50_000, maxPendingExports: 5, maxStoredExports: 50, maxExportStorageBytes: 5 * GIB, maxExportRows: 100_000 },
  enterprise_max_premium: {
    name: 'enterprise_max_premium',
    label: 'Enterprise Max Premium',
    apiAccess: true,
    requestsPerMinute: 2_000,
    callsPerDay: 200_000,
    globalDomainView: true,
    maxDomains: 100_000,
    maxPendingExports: 10,
    maxStoredExports: 100,
    maxExportStorageBytes: 20 * GIB,
    // The global scope exports the whole corpus.
    maxExportRows: 2_000_000,
  },
};

/** Active portfolio API keys an account may hold at once (portfolio spec: Authentication item 2). */
export const MAX_ACTIVE_PORTFOLIO_KEYS = 3;
