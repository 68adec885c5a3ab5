import { z } from 'zod';
import { env, serviceSchema, unsafe, type ProductionRules } from '@dv/runtime';
import { PROBE_DEFAULTS as D } from './defaults.ts';

const hostname = z.string().regex(/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, 'must be a host name (FQDN)');
const ms = (fallback: number, max = 600_000) => env.int(fallback, 1, max);

export const probeConfigSchema = z
  .object({
    ...serviceSchema(D.port),
    SMTP_PORT: env.port(D.smtpPort),
    /** DNS servers used to resolve MX host names (`host` or `host:port`); empty = the system's. */
    DNS_SERVERS: env.hostPorts(),
    /** Source addresses this node binds its SMTP connections to; empty = the OS chooses. */
    PROBE_SOURCE_IPS: env.ipList(),
    PROBE_HELO_NAME: hostname.default(D.heloName),
    PROBE_MAIL_FROM: z.email('must be an email address').default(D.mailFrom),
    /** Becomes the subject `probe.<id>.session`; NATS tokens allow no dots or wildcards. */
    PROBE_NODE_ID: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').optional(),
    PROBE_CONNECT_TIMEOUT_MS: ms(D.connectTimeoutMs),
    PROBE_GREETING_TIMEOUT_MS: ms(D.greetingTimeoutMs),
    PROBE_COMMAND_TIMEOUT_MS: ms(D.commandTimeoutMs),
    PROBE_SESSION_TIMEOUT_MS: ms(D.sessionTimeoutMs),
    PROBE_MAX_CONNECT_TIMEOUT_MS: ms(D.maxConnectTimeoutMs),
    PROBE_MAX_GREETING_TIMEOUT_MS: ms(D.maxGreetingTimeoutMs),
    PROBE_MAX_COMMAND_TIMEOUT_MS: ms(D.maxCommandTimeoutMs),
    PROBE_MAX_SESSION_TIMEOUT_MS: ms(D.maxSessionTimeoutMs),
    PROBE_MAX_REPLY_LINE_BYTES: env.int(D.maxReplyLineBytes, 512, 65_536),
    PROBE_MAX_REPLY_LINES: env.int(D.maxReplyLines, 10, 10_000),
    PROBE_MAX_BUFFERED_BYTES: env.int(D.maxBufferedBytes, 4_096, 16 * 1024 * 1024),
    PROBE_MAX_CONNECT_ATTEMPTS: env.int(D.maxConnectAttempts, 1, 20),
    PROBE_MAX_RECONNECTS: env.int(D.maxReconnects, 0, 100),
    PROBE_PIPELINING: env.bool(D.pipelining),
    PROBE_STARTTLS: env.bool(D.startTls),
    PROBE_TLS_CLEAR_FALLBACK: env.bool(D.tlsClearFallback),
    PROBE_IDLE_CONNECTION_MS: env.int(D.idleConnectionMs, 0, 300_000),
    PROBE_MAX_IDLE_CONNECTIONS: env.int(D.maxIdleConnections, 0, 100_000),
    PROBE_MAX_TRANSACTIONS_PER_CONNECTION: env.int(D.maxTransactionsPerConnection, 1, 10_000),
    PROBE_ASSUMED_ERROR_BUDGET: env.int(D.assumedErrorBudget, 1, 1_000),
    PROBE_MAX_CONCURRENT_SESSIONS: env.int(D.maxConcurrentSessions, 1, 100_000),
    PROBE_HEARTBEAT_INTERVAL_MS: env.int(D.heartbeatIntervalMs, 100, 60_000),
    PROBE_HEALTH_WINDOW_MS: env.int(D.healthWindowMs, 1_000, 24 * 3_600_000),
    PROBE_DRAIN_TIMEOUT_MS: env.int(D.drainTimeoutMs, 0, 600_000),
    PROBE_DNS_TIMEOUT_MS: ms(D.dnsTimeoutMs, 60_000),
    PROBE_ALLOW_PRIVATE_MX: env.bool(D.allowPrivateMx),
  })
  .superRefine((c, ctx) => {
    const pairs = [
      ['PROBE_CONNECT_TIMEOUT_MS', 'PROBE_MAX_CONNECT_TIMEOUT_MS'],
      ['PROBE_GREETING_TIMEOUT_MS', 'PROBE_MAX_GREETING_TIMEOUT_MS'],
      ['PROBE_COMMAND_TIMEOUT_MS', 'PROBE_MAX_COMMAND_TIMEOUT_MS'],
      ['PROBE_SESSION_TIMEOUT_MS', 'PROBE_MAX_SESSION_TIMEOUT_MS'],
    ] as const;
    for (const [value, cap] of pairs) {
      if (c[value] > c[cap]) ctx.addIssue({ code: 'custom', path: [value], message: `must not exceed ${cap} (${c[cap]})` });
    }
  });
export type ProbeConfig = z.infer<typeof probeConfigSchema>;

/** Refused when NODE_ENV=production: remote MX hosts see these names, and private MX addresses are test worlds only (loadConfig lists every one; exit 78). */
export const probeProductionRules: ProductionRules<ProbeConfig> = {
  PROBE_HELO_NAME: unsafe.localhostName(),
  PROBE_MAIL_FROM: unsafe.localhostEmail(),
  PROBE_ALLOW_PRIVATE_MX: unsafe.switchOn('probes may connect to private and special-purpose MX addresses'),
};
