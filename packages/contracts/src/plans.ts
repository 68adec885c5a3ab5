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

/** Active API keys an account may hold at once (spec: Authentication item 4). */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 10;

// Portfolio API plans (../shared/specs/domain-portfolio.md "Limits"), apart from the verification
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
}

export const PORTFOLIO_PLANS: Readonly<Record<PortfolioPlanName, PortfolioPlan>> = {
  business: { name: 'business', label: 'Business', apiAccess: false, requestsPerMinute: 0, callsPerDay: 0, globalDomainView: false },
  enterprise: { name: 'enterprise', label: 'Enterprise', apiAccess: true, requestsPerMinute: 100, callsPerDay: 10_000, globalDomainView: false },
  enterprise_max: { name: 'enterprise_max', label: 'Enterprise Max', apiAccess: true, requestsPerMinute: 500, callsPerDay: 50_000, globalDomainView: false },
  enterprise_max_premium: { name: 'enterprise_max_premium', label: 'Enterprise Max Premium', apiAccess: true, requestsPerMinute: 2_000, callsPerDay: 200_000, globalDomainView: true },
};

/** Active portfolio API keys an account may hold at once (portfolio spec: Authentication item 2). */
export const MAX_ACTIVE_PORTFOLIO_KEYS = 3;
