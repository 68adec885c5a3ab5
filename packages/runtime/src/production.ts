import { isIP } from 'node:net';

// With NODE_ENV=production a service refuses settings that are fine on a laptop but unsafe in front
// of customers: loopback addresses as its public name, test-only escape hatches, missing or
// published secrets. Each service declares its own rules next to its schema (one line per
// variable) and loadConfig reports them with the schema's problems, so the process exits 78 with one
// message naming every offending variable.

/** Why `value` is unsafe in production, or undefined when it is fine. */
export type ProductionCheck<V, C> = (value: V, config: C) => string | undefined;

/** Variable name → its check; names the config does not have are ignored. */
export type ProductionRules<C> = { readonly [K in keyof C]?: ProductionCheck<C[K], C> };

export function isProduction(nodeEnv: string | undefined): boolean {
  return nodeEnv === 'production';
}

/** `NAME: why` for every rule that refuses its variable's value. */
export function productionProblems<C extends object>(config: C, rules: ProductionRules<C>): string[] {
  const problems: string[] = [];
  for (const [name, check] of Object.entries(rules) as Array<[keyof C & string, ProductionCheck<unknown, C> | undefined]>) {
    if (!check || !(name in config)) continue;
    const why = check(config[name], config);
    if (why) problems.push(`${name}: ${why}`);
  }
  return problems;
}

/** True for localhost, *.localhost, 127.0.0.0/8, ::1, 0.0.0.0 and :: (hosts only this machine reaches). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.') || h === '0.0.0.0';
  if (isIP(h) === 6) return h === '::1' || h === '::' || /^::ffff:127\./.test(h) || /^(0{1,4}:){7}0{0,3}1$/.test(h);
  return false;
}

const IN_PRODUCTION = 'not allowed when NODE_ENV=production';

/** Building blocks of the services' rules. */
export const unsafe = {
  /** A test-only or loopback/private switch: refused when on. */
  switchOn:
    (what: string): ProductionCheck<boolean, unknown> =>
    (on) =>
      on ? `${what}; ${IN_PRODUCTION} (unset it)` : undefined,
  /** A URL customers follow: refused when it names this machine. */
  loopbackUrl:
    (): ProductionCheck<string, unknown> =>
    (url) => {
      const host = URL.canParse(url) ? new URL(url).hostname : '';
      return isLoopbackHost(host) ? `"${url}" is a loopback address only this machine reaches; ${IN_PRODUCTION} (set the public address)` : undefined;
    },
  /** A host name others see (EHLO): refused under `localhost`. */
  localhostName:
    (): ProductionCheck<string, unknown> =>
    (name) =>
      isLoopbackHost(name) ? `"${name}" is a local-only name; ${IN_PRODUCTION} (set an FQDN that resolves to this host)` : undefined,
  /** An address others see (envelope sender, From): refused when its domain is local-only. */
  localhostEmail:
    (): ProductionCheck<string, unknown> =>
    (address) => {
      const domain = /@([^@>\s]+)>?\s*$/.exec(address)?.[1] ?? '';
      return isLoopbackHost(domain) ? `"${address}" has a local-only domain; ${IN_PRODUCTION} (use a domain you own)` : undefined;
    },
  /**
   * A secret: required, and never a value that has been in this repository (development keys, test
   * keys), since anyone could sign with those. The value is never echoed.
   */
  secret:
    (what: string, published: readonly string[] = []): ProductionCheck<string | undefined, unknown> =>
    (value) => {
      if (!value) return `required when NODE_ENV=production (${what}); set it or NAME_FILE`;
      return published.includes(value) ? `is a value published in the source repository (${what}); ${IN_PRODUCTION} (generate a fresh one, e.g. openssl rand -base64 48)` : undefined;
    },
};

/** Settings that go in pairs, checked in every environment. */
export const COMMON_RULES: ProductionRules<{ NATS_USER?: string; NATS_PASSWORD?: string; REDIS_SENTINELS?: readonly string[]; REDIS_SENTINEL_NAME?: string }> = {
  REDIS_SENTINEL_NAME: (name, config) => {
    const sentinels = (config.REDIS_SENTINELS ?? []).length > 0;
    if (sentinels && !name) return 'required with REDIS_SENTINELS (the primary\'s name the Sentinels monitor)';
    return !sentinels && name ? 'set without REDIS_SENTINELS (list the Sentinels, host:port,...)' : undefined;
  },
  NATS_PASSWORD: (password, config) => {
    if (config.NATS_USER && !password) return 'required with NATS_USER (set NATS_PASSWORD_FILE to the file holding the password)';
    return !config.NATS_USER && password ? 'set without NATS_USER (name the user the password belongs to)' : undefined;
  },
};

/** `nats://user:pass@host`: a credential in the environment, where any process listing can read it. */
function urlCredentials(url: string): boolean {
  return URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '');
}

/** Added by runService for the services that use the bus (lookup does not). */
export const NATS_PRODUCTION_RULES: ProductionRules<{ NATS_USER?: string }> = {
  // Without a user, any pod that reaches NATS could request probe sessions or forge heartbeats.
  NATS_USER: (user) => (user ? undefined : `required when NODE_ENV=production: the bus refuses anonymous clients (set the service's NATS user, and NATS_PASSWORD_FILE)`),
};

/** Only these peers' X-Forwarded-For would be believed; "everyone" defeats the point. */
const TRUSTS_EVERYONE = new Set(['0.0.0.0/0', '::/0', '0.0.0.0', '::']);

/**
 * Rules every service gets (their variables are in serviceSchema). BEHIND_PROXY=true declares that
 * clients reach the service through a reverse proxy or load balancer; then the proxies must be
 * listed, or every client would share the proxy's address (one per-IP quota for all).
 */
export const COMMON_PRODUCTION_RULES: ProductionRules<{ BEHIND_PROXY: boolean; TRUSTED_PROXIES: readonly string[]; NATS_URL?: string }> = {
  NATS_URL: (url) => (url && urlCredentials(url) ? `carries a user or password; ${IN_PRODUCTION} (use NATS_USER and NATS_PASSWORD_FILE)` : undefined),
  TRUSTED_PROXIES: (proxies, config) => {
    if (config.BEHIND_PROXY && proxies.length === 0) return `empty while BEHIND_PROXY=true; ${IN_PRODUCTION} (list the proxies' IPs or CIDRs, or set BEHIND_PROXY=false)`;
    const everyone = proxies.filter((p) => TRUSTS_EVERYONE.has(p));
    return everyone.length > 0 ? `${everyone.join(', ')} would believe any client's X-Forwarded-For; ${IN_PRODUCTION} (list only the proxies)` : undefined;
  },
};
