import type { Db } from 'mongodb';
import type { Redis } from 'ioredis';
import { consoleSignInLink } from '@dv/gateway/admin';
import { createAccount, createApiKey, createPortfolioKey, findAccountByEmail, listApiKeys, listPortfolioKeys, revokeApiKey, revokePortfolioKey, setPortfolioPlan } from '@dv/accounts';
import { PORTFOLIO_DEFAULTS } from '@dv/portfolio-scanner/defaults';
import { addDomains } from '@dv/portfolio-scanner/admin';

export const DEMO_ACCOUNT = { name: 'Demo', email: 'demo@example.com', plan: 'business', credits: 10_000 } as const;

export interface DemoKeys {
  accountId: string;
  live: string;
  sandbox: string;
}

/**
 * The demo account (Business plan, 10,000 credits) with one live and one sandbox key. Full keys are
 * shown once only, so every start revokes the previous demo keys and issues fresh ones.
 */
export async function ensureDemoAccount(db: Db): Promise<DemoKeys> {
  const account = (await findAccountByEmail(db, DEMO_ACCOUNT.email)) ?? (await createAccount(db, { ...DEMO_ACCOUNT }));
  for (const key of await listApiKeys(db, account._id)) {
    if (key.revoked_at === null && key.name.startsWith('demo-')) await revokeApiKey(db, key._id);
  }
  const live = await createApiKey(db, account._id, 'demo-live', 'live');
  const sandbox = await createApiKey(db, account._id, 'demo-sandbox', 'sandbox');
  return { accountId: account._id, live: live.key, sandbox: sandbox.key };
}

/** The demo's console sign-in link lasts a day of demoing; like every sign-in link it works once. */
export const DEMO_CONSOLE_LINK_TTL_MS = 24 * 60 * 60 * 1000;

export interface DemoConsole {
  /** The console's address, e.g. http://127.0.0.1:8080/app/. */
  console: string;
  /** A one-time sign-in link for the demo account's owner (demo@example.com). */
  console_signin: string;
}

/** The console's URL and a ready sign-in link for the demo account's owner, as the console issues them. */
export async function demoConsole(redis: Redis, gatewayBaseUrl: string, redisKeyPrefix = process.env.REDIS_KEY_PREFIX): Promise<DemoConsole> {
  const link = await consoleSignInLink({ redis, redisKeyPrefix, baseUrl: gatewayBaseUrl, email: DEMO_ACCOUNT.email, ttlMs: DEMO_CONSOLE_LINK_TTL_MS });
  return { console: `${gatewayBaseUrl.replace(/\/+$/, '')}/app/`, console_signin: link.url };
}

/** Domains of the default simulated world (packages/world/worlds/default.json) the demo account monitors. */
export const DEMO_PORTFOLIO_DOMAINS = ['acme.test', 'catchall.test', 'fallback.test', 'nullmx.test', 'aonly.test', 'servfail.test'] as const;

/**
 * `npm run demo`: puts a few world domains in the demo account's portfolio. A domain new to the
 * portfolio is due at once, so the scanner's planner publishes it within seconds and its first scan
 * lands in `portfolio_corpus`. Returns how many were new (0 on a restart: they are kept).
 */
export async function ensureDemoPortfolio(db: Db, accountId: string, intervalS = Number(process.env.PORTFOLIO_RESCAN_INTERVAL_S ?? PORTFOLIO_DEFAULTS.rescanIntervalS)): Promise<number> {
  const { domains } = await addDomains(db, accountId, DEMO_PORTFOLIO_DOMAINS, { intervalS });
  return domains.filter((d) => d.outcome !== 'existing').length;
}

/**
 * The demo account on the Enterprise Max portfolio plan with a fresh portfolio API key (svc_live_…,
 * shown once, so each start revokes the previous demo key and issues a new one).
 */
export async function ensureDemoPortfolioKey(db: Db, accountId: string): Promise<string> {
  await setPortfolioPlan(db, accountId, 'enterprise_max');
  for (const key of await listPortfolioKeys(db, accountId)) {
    if (key.revoked_at === null && key.name.startsWith('demo-')) await revokePortfolioKey(db, accountId, key.id);
  }
  return (await createPortfolioKey(db, accountId, 'demo-portfolio')).key;
}

/** The second Enterprise Max account (its own domains: isolation shows over REST and MCP) and an account whose plan has no API access. */
export const DEMO_PORTFOLIO_OTHER = { name: 'Demo Other', email: 'demo-other@example.com', plan: 'business' } as const;
export const DEMO_PORTFOLIO_NO_API = { name: 'Demo No API', email: 'demo-noapi@example.com', plan: 'business' } as const;
export const DEMO_OTHER_PORTFOLIO_DOMAINS = ['greylist.test', 'starttls.test'] as const;

export interface DemoPortfolioKeys {
  /** svc_live_ key of a second Enterprise Max account. */
  other: string;
  /** svc_live_ key of an account on the Business portfolio plan (no API access: 403 everywhere). */
  noApi: string;
}

async function freshDemoKey(db: Db, accountId: string, plan: 'enterprise_max' | 'business'): Promise<string> {
  await setPortfolioPlan(db, accountId, plan);
  for (const key of await listPortfolioKeys(db, accountId)) {
    if (key.revoked_at === null && key.name.startsWith('demo-')) await revokePortfolioKey(db, accountId, key.id);
  }
  return (await createPortfolioKey(db, accountId, 'demo-portfolio')).key;
}

/**
 * The two other portfolio accounts of the demo with fresh keys (shown once, so each start revokes
 * the previous ones). With the simulated world, the second account monitors domains of its own.
 */
export async function ensureDemoPortfolioAccounts(db: Db, opts: { world: boolean; intervalS?: number }): Promise<DemoPortfolioKeys> {
  const other = (await findAccountByEmail(db, DEMO_PORTFOLIO_OTHER.email)) ?? (await createAccount(db, { ...DEMO_PORTFOLIO_OTHER }));
  const noApi = (await findAccountByEmail(db, DEMO_PORTFOLIO_NO_API.email)) ?? (await createAccount(db, { ...DEMO_PORTFOLIO_NO_API }));
  const keys = { other: await freshDemoKey(db, other._id, 'enterprise_max'), noApi: await freshDemoKey(db, noApi._id, 'business') };
  if (opts.world) await addDomains(db, other._id, DEMO_OTHER_PORTFOLIO_DOMAINS, { intervalS: opts.intervalS ?? Number(process.env.PORTFOLIO_RESCAN_INTERVAL_S ?? PORTFOLIO_DEFAULTS.rescanIntervalS) });
  return keys;
}
