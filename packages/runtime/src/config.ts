import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { shapeOf, tunables } from './tunables.ts';
import { COMMON_PRODUCTION_RULES, COMMON_RULES, isProduction, productionProblems, type ProductionRules } from './production.ts';

/** Thrown by `loadConfig` with every bad variable listed, so one run shows every problem at once. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(service: string, problems: string[], heading = 'invalid configuration') {
    super(`${service}: ${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Reads `schema` from the environment. For any variable NAME, `NAME_FILE` may name a file whose
 * contents (trimmed) become NAME: the Kubernetes way to pass secrets without putting them in the
 * environment. Setting both is an error, as is an unreadable file.
 */
export function loadConfig<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  /** With NODE_ENV=production, the service's settings that are refused (see production.ts). */
  unsafeInProduction: ProductionRules<z.infer<S>> = {},
): z.infer<S> {
  const problems: string[] = [];
  const values: Record<string, string | undefined> = {};
  for (const name of Object.keys(schema.shape)) {
    const direct = env[name];
    const file = env[`${name}_FILE`];
    if (file !== undefined && file !== '') {
      if (direct !== undefined && direct !== '') {
        problems.push(`${name}: set both ${name} and ${name}_FILE; set only one`);
        continue;
      }
      try {
        values[name] = readFileSync(file, 'utf8').trim();
      } catch (err) {
        problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      continue;
    }
    values[name] = direct === '' ? undefined : direct;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '(config)');
      const got = values[name];
      problems.push(`${name}: ${issue.message}${got === undefined ? ' (not set)' : ` (got ${JSON.stringify(redact(name, got))})`}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(service, problems);
  const data = (parsed as { data: z.infer<S> }).data;
  const mismatched = productionProblems(data, COMMON_RULES as ProductionRules<z.infer<S>>);
  if (mismatched.length > 0) throw new ConfigError(service, mismatched);
  // Checked on the parsed values (a boolean is a boolean, a URL is valid), so only once the schema passes.
  if (isProduction((data as { NODE_ENV?: string }).NODE_ENV ?? env.NODE_ENV)) {
    const unsafe = productionProblems(data, { ...(COMMON_PRODUCTION_RULES as ProductionRules<z.infer<S>>), ...unsafeInProduction });
    if (unsafe.length > 0) throw new ConfigError(service, unsafe, 'invalid configuration for NODE_ENV=production');
  }
  return data;
}

function redact(name: string, value: string): string {
  return /SECRET|PASSWORD|TOKEN|KEY/i.test(name) ? '<redacted>' : value;
}

/** Loads config or exits the process with the one message that lists every bad variable. */
export function loadConfigOrExit<S extends z.ZodObject>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env, unsafeInProduction: ProductionRules<z.infer<S>> = {}): z.infer<S> {
  try {
    return loadConfig(service, schema, env, unsafeInProduction);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

// Building blocks the services compose into their schemas. Every duration carries its unit.

export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  url: (protocols: readonly string[]) =>
    z.string().refine((v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, `must be a URL with scheme ${protocols.join(' or ')}`),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z.enum(['true', 'false', '1', '0', 'yes', 'no']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1' || v === 'yes'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Comma-separated `host` or `host:port` list (DNS_SERVERS). Empty means the system's resolvers. */
  hostPorts: () =>
    z
      .string()
      .default('')
      .transform((v, ctx) => {
        const items = v.split(',').map((s) => s.trim()).filter(Boolean);
        for (const item of items) {
          if (!/^(\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F]*:[0-9a-fA-F:]+|[A-Za-z0-9.-]+(:\d{1,5})?)$/.test(item)) ctx.addIssue({ code: 'custom', message: `"${item}" is not host or host:port` });
        }
        return items;
      }),
  /** Comma-separated domain names (DNS_CANARIES); set empty for none. */
  domainList: (fallback: readonly string[]) =>
    z
      .string()
      .default(fallback.join(','))
      .transform((v, ctx) => {
        const items = v.split(',').map((s) => s.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean);
        for (const item of items) if (!/^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(item)) ctx.addIssue({ code: 'custom', message: `"${item}" is not a domain name` });
        return items;
      }),
  /** Comma-separated IP list (PROBE_SOURCE_IPS). */
  ipList: () =>
    z
      .string()
      .default('')
      .transform((v, ctx) => {
        const items = v.split(',').map((s) => s.trim()).filter(Boolean);
        for (const item of items) if (!/^[0-9.]+$|^[0-9a-fA-F:]+$/.test(item)) ctx.addIssue({ code: 'custom', message: `"${item}" is not an IP address` });
        return items;
      }),
  /** Comma-separated IPs or CIDRs (TRUSTED_PROXIES). */
  cidrList: () =>
    z
      .string()
      .default('')
      .transform((v, ctx) => {
        const items = v.split(',').map((s) => s.trim()).filter(Boolean);
        for (const item of items) {
          const [addr = '', prefix, ...rest] = item.split('/');
          const family = isIP(addr);
          const max = family === 6 ? 128 : 32;
          const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
          if (family === 0 || !prefixOk || rest.length > 0) ctx.addIssue({ code: 'custom', message: `"${item}" is not an IP address or CIDR` });
        }
        return items;
      }),
};

/** Connection settings shared by every service that talks to the platform's servers. */
export const infraTunables = tunables({
  NATS_URL: { schema: env.url(['nats:', 'tls:']).default('nats://127.0.0.1:4222'), meaning: 'NATS with JetStream' },
  /** Never lowered at start (nats.ts). */
  NATS_STREAM_REPLICAS: {
    schema: env.int(1, 1, 5),
    unit: 'replicas',
    meaning: 'replicas of every JetStream stream and KV bucket: 1 on one server (local, tests), 3 on a three-server cluster (the k8s prod overlay sets 3); existing streams are raised to it, never lowered; above 1 a non-clustered server is refused at start',
  },
  NATS_USER: {
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').optional(),
    meaning:
      "the service's bus user (with `NATS_PASSWORD`, both or neither; required with `NODE_ENV=production`); permissions per user in `@dv/contracts` `NATS_ROLES` (docs/operations.md); unset: an anonymous connection, which a local stack maps to its all-permitted `dev` user; the local launcher sets it for every service it starts",
  },
  NATS_PASSWORD: { schema: z.string().min(1).optional(), meaning: "the bus user's password, given as `NATS_PASSWORD_FILE` (a mounted Secret)" },
  REDIS_URL: { schema: env.url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'), meaning: 'Redis 7' },
  REDIS_SENTINELS: {
    schema: env.hostPorts(),
    meaning:
      "Redis with failover: the Sentinels' `host:port,…` list (with `REDIS_SENTINEL_NAME`, both or neither); the client asks them for the primary and follows a failover by itself, `REDIS_URL` then gives only password, TLS and database (the k8s prod overlay sets them)",
  },
  REDIS_SENTINEL_NAME: {
    schema: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, . _ or -').optional(),
    meaning: 'name of the primary the Sentinels monitor',
  },
  MONGODB_URL: { schema: env.url(['mongodb:', 'mongodb+srv:']).default('mongodb://127.0.0.1:27017/?replicaSet=rs0'), meaning: 'MongoDB 7 replica set' },
  MONGODB_DB: { schema: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -').default('deliverability'), meaning: 'database name' },
});

export const commonTunables = tunables({
  LOG_LEVEL: { schema: env.logLevel(), meaning: '`fatal` … `trace`, or `silent`' },
  SHUTDOWN_TIMEOUT_MS: {
    schema: env.int(9_000, 100, 60_000),
    meaning: 'drain budget after SIGTERM (after `SHUTDOWN_DELAY_MS`); the process exits by then',
  },
  SHUTDOWN_DELAY_MS: {
    schema: env.int(5_000, 0, 60_000),
    meaning:
      'after SIGTERM, `/readyz` answers 503 while requests are still served for this long, then the listener closes (load balancers stop sending first); `0` under `npm start`, in tests and in k8s (its preStop sleep does this)',
  },
  /** Every replica shares the dependencies, and a blip must not take every pod out of rotation at once (readiness.ts). */
  READINESS_GRACE_MS: {
    schema: env.int(10_000, 0, 300_000),
    meaning:
      'a dependency (NATS, Redis, MongoDB) must be down this long without a break before `/readyz` fails (a shared backend\'s blip does not unready every pod); `dependency_up` shows each failed check at once; `/healthz` is the process only',
  },
  NODE_ENV: { schema: z.string().default('development'), meaning: '`production` refuses unsafe settings (README "Production", production.ts)' },
});

/**
 * Client addresses behind a reverse proxy. express's `trust proxy` is TRUSTED_PROXIES (default none:
 * req.ip is the socket peer, and an X-Forwarded-For anyone can send is ignored).
 */
export const proxyTunables = tunables({
  BEHIND_PROXY: {
    schema: env.bool(false),
    meaning: '`true` declares that clients arrive through a reverse proxy or load balancer; production then requires `TRUSTED_PROXIES`',
  },
  TRUSTED_PROXIES: {
    schema: env.cidrList(),
    meaning:
      'IPs/CIDRs of the reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (express `trust proxy`); empty: the socket address is the client. The portfolio API is HTTPS only: behind a TLS-terminating proxy, list it here (docs/portfolio-scanner.md "HTTPS only")',
  },
});

/** The rows every service has: HOST/PORT plus the common, proxy and infra settings. */
export function serviceTunables(defaultPort: number) {
  return tunables({
    HOST: { schema: z.string().min(1).default('127.0.0.1'), meaning: 'address to listen on (`0.0.0.0` in containers)' },
    PORT: { schema: env.port(defaultPort), defaultText: 'per service', meaning: 'HTTP port (`0` = any free port); defaults: gateway 8080, lookup 8081, portfolio-scanner 8082, scheduler 9464, probe-node 9465' },
    ...commonTunables,
    ...proxyTunables,
    ...infraTunables,
  });
}

export const infraSchema = shapeOf(infraTunables);
export const commonSchema = shapeOf(commonTunables);
export const proxySchema = shapeOf(proxyTunables);

/** HOST/PORT plus the common and infra settings; a service spreads this into its own schema. */
export function serviceSchema(defaultPort: number) {
  return shapeOf(serviceTunables(defaultPort));
}
