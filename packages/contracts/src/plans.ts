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
