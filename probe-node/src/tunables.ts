// The probe node's environment variables, one row each (name, validation with its default, unit,
// meaning): config.ts builds its schema from them and scripts/config-tables.ts prints the docs'
// tables from them. The defaults themselves, and why they are what they are, are in defaults.ts.
import { z } from 'zod';
import { env, tunables } from '@dv/runtime';
import { PROBE_DEFAULTS as D } from './defaults.ts';

const hostname = z.string().regex(/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, 'must be a host name (FQDN)');
const ms = (fallback: number, max = 600_000) => env.int(fallback, 1, max);

export const PROBE_TUNABLES = tunables({
  SMTP_PORT: { schema: env.port(D.smtpPort), meaning: "the port dialled on MX hosts; 25 on the internet, the simulated world's port in tests" },
  DNS_SERVERS: { schema: env.hostPorts(), defaultText: "the system's resolvers", meaning: 'DNS servers used to resolve MX host names (`host` or `host:port`, comma-separated)' },
  PROBE_SOURCE_IPS: { schema: env.ipList(), defaultText: 'the OS chooses', meaning: 'source addresses this node binds its SMTP connections to (comma-separated)' },
  PROBE_HELO_NAME: {
    schema: hostname.default(D.heloName),
    meaning: "the FQDN announced in EHLO/HELO; should match the source IPs' PTR records; refused under `localhost` when `NODE_ENV=production`",
  },
  PROBE_MAIL_FROM: {
    schema: z.email('must be an email address').default(D.mailFrom),
    meaning: 'envelope sender when a request names none; greylisting keys on it, so keep it stable; refused under `localhost` when `NODE_ENV=production`',
  },
  PROBE_NODE_ID: {
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').optional(),
    defaultText: 'generated',
    meaning: 'node id in the subject `probe.<id>.session` (NATS tokens allow no dots or wildcards)',
  },
  PROBE_CONNECT_TIMEOUT_MS: { schema: ms(D.connectTimeoutMs), meaning: 'TCP connect to one MX address (at most `PROBE_MAX_CONNECT_TIMEOUT_MS`)' },
  PROBE_GREETING_TIMEOUT_MS: { schema: ms(D.greetingTimeoutMs), meaning: 'connect → complete 220 greeting (at most `PROBE_MAX_GREETING_TIMEOUT_MS`)' },
  PROBE_COMMAND_TIMEOUT_MS: {
    schema: ms(D.commandTimeoutMs),
    meaning: 'each reply (pipelined: from the previous reply); also the TLS handshake (at most `PROBE_MAX_COMMAND_TIMEOUT_MS`)',
  },
  PROBE_SESSION_TIMEOUT_MS: {
    schema: ms(D.sessionTimeoutMs),
    meaning: 'the whole session, reconnects included (an absolute deadline: a tarpit answering every 14 s cannot hold a slot forever; at most `PROBE_MAX_SESSION_TIMEOUT_MS`)',
  },
  PROBE_MAX_CONNECT_TIMEOUT_MS: { schema: ms(D.maxConnectTimeoutMs), meaning: 'cap on the connect timeout a request may ask for' },
  PROBE_MAX_GREETING_TIMEOUT_MS: { schema: ms(D.maxGreetingTimeoutMs), meaning: 'cap on the greeting timeout a request may ask for' },
  PROBE_MAX_COMMAND_TIMEOUT_MS: { schema: ms(D.maxCommandTimeoutMs), meaning: 'cap on the command timeout a request may ask for' },
  PROBE_MAX_SESSION_TIMEOUT_MS: { schema: ms(D.maxSessionTimeoutMs), meaning: 'cap on the session timeout a request may ask for' },
  PROBE_MAX_REPLY_LINE_BYTES: { schema: env.int(D.maxReplyLineBytes, 512, 65_536), meaning: 'one reply line; longer ends the session with `protocol_error`' },
  PROBE_MAX_REPLY_LINES: { schema: env.int(D.maxReplyLines, 10, 10_000), unit: 'lines', meaning: 'lines of one multi-line reply; more ends the session with `protocol_error`' },
  PROBE_MAX_BUFFERED_BYTES: {
    schema: env.int(D.maxBufferedBytes, 4_096, 16 * 1024 * 1024),
    meaning: 'unread received bytes held per session (queued replies + the partial line); more ends the session with `protocol_error`',
  },
  PROBE_MAX_CONNECT_ATTEMPTS: { schema: env.int(D.maxConnectAttempts, 1, 20), unit: 'addresses', meaning: 'MX addresses tried per session before giving up (connect failures)' },
  PROBE_MAX_RECONNECTS: { schema: env.int(D.maxReconnects, 0, 100), unit: 'sessions', meaning: 'extra sessions after 452 4.5.3 (too many recipients), each with fewer RCPTs' },
  PROBE_PIPELINING: { schema: env.bool(D.pipelining), meaning: 'use PIPELINING (RFC 2920) when offered; off: one command per round trip' },
  PROBE_STARTTLS: { schema: env.bool(D.startTls), meaning: 'use STARTTLS when offered' },
  PROBE_TLS_CLEAR_FALLBACK: { schema: env.bool(D.tlsClearFallback), meaning: 'after a failed TLS handshake, reconnect once in clear text; off: the session ends with outcome `tls_failed`' },
  PROBE_IDLE_CONNECTION_MS: {
    schema: env.int(D.idleConnectionMs, 0, 300_000),
    meaning: 'a cleanly ended connection stays open this long (after RSET) for the next session to the same MX host from the same source address (pool.ts); 0 = QUIT after every session',
  },
  PROBE_MAX_IDLE_CONNECTIONS: { schema: env.int(D.maxIdleConnections, 0, 100_000), unit: 'connections', meaning: 'idle connections kept at most (oldest closed first)' },
  PROBE_MAX_TRANSACTIONS_PER_CONNECTION: { schema: env.int(D.maxTransactionsPerConnection, 1, 10_000), unit: 'transactions', meaning: 'transactions on one connection before it is closed' },
  PROBE_ASSUMED_ERROR_BUDGET: {
    schema: env.int(D.assumedErrorBudget, 1, 1_000),
    unit: 'error replies',
    meaning: 'error replies a host is assumed to tolerate on one connection when the scheduler has learned none (request `error_budget`); 1 = never reuse a connection that drew an error',
  },
  PROBE_MAX_CONCURRENT_SESSIONS: { schema: env.int(D.maxConcurrentSessions, 1, 100_000), unit: 'sessions', meaning: 'sessions in flight; more requests get outcome `busy` at once' },
  PROBE_HEARTBEAT_INTERVAL_MS: { schema: env.int(D.heartbeatIntervalMs, 100, 60_000), meaning: 'how often `probe.heartbeat` is published' },
  PROBE_HEALTH_WINDOW_MS: { schema: env.int(D.healthWindowMs, 1_000, 24 * 3_600_000), meaning: 'throttled/blocked replies counted in the heartbeat cover this window' },
  PROBE_DRAIN_TIMEOUT_MS: { schema: env.int(D.drainTimeoutMs, 0, 600_000), meaning: 'on SIGTERM, how long in-flight sessions may run before they are cut' },
  PROBE_DNS_TIMEOUT_MS: { schema: ms(D.dnsTimeoutMs, 60_000), meaning: 'one DNS query attempt for an MX host name' },
  PROBE_ALLOW_PRIVATE_MX: {
    schema: env.bool(D.allowPrivateMx),
    meaning:
      '`true` lets probes connect to loopback, private, link-local, CGNAT, metadata and other special-purpose MX addresses (the simulated world lives on 127.x; `npm run demo` and the tests set it); refused when `NODE_ENV=production`',
  },
});
