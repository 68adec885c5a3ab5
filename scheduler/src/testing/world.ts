// The default simulated internet plus a few hosts the scheduler tests need: a provider from the
// provider table that accepts all at RCPT (Yahoo-like MX name), a fast-window rate limiter, and a
// slow host for "killed mid-batch" cases, and a slow host that throttles every session at MAIL
// (redis-failure.test: Redis stopped while its session runs).
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type SmtpHostSpecInput, type WorldHandle, type WorldInput } from '@dv/world';

export async function startSchedulerWorld(): Promise<WorldHandle> {
  const world = loadWorld(DEFAULT_WORLD_PATH);
  world.dns.records.push(
    { name: 'yahoo-like.test', type: 'MX', priority: 1, exchange: 'mta5.am0.yahoodns.net', ttl: 300 },
    { name: 'mta5.am0.yahoodns.net', type: 'A', address: '127.0.8.10', ttl: 300 },
    { name: 'throttle.test', type: 'MX', priority: 10, exchange: 'mx.throttle.test', ttl: 300 },
    { name: 'mx.throttle.test', type: 'A', address: '127.0.8.20', ttl: 300 },
    { name: 'slow.test', type: 'MX', priority: 10, exchange: 'mx.slow.test', ttl: 300 },
    { name: 'mx.slow.test', type: 'A', address: '127.0.8.30', ttl: 300 },
    { name: 'polite.test', type: 'MX', priority: 10, exchange: 'mx.polite.test', ttl: 300 },
    { name: 'mx.polite.test', type: 'A', address: '127.0.8.40', ttl: 300 },
    { name: 'throttled.test', type: 'MX', priority: 10, exchange: 'mx.throttled.test', ttl: 300 },
    { name: 'mx.throttled.test', type: 'A', address: '127.0.8.50', ttl: 300 },
  );
  const extra: SmtpHostSpecInput[] = [
    { name: 'mta5.am0.yahoodns.net', ip: '127.0.8.10', mailboxes: [], behaviour: { acceptAllAtRcpt: true } },
    { name: 'mx.throttle.test', ip: '127.0.8.20', mailboxes: ['user@throttle.test'], behaviour: { rateLimitAfterSessions: 1, rateLimitWindowSeconds: 2 } },
    { name: 'mx.slow.test', ip: '127.0.8.30', mailboxes: Array.from({ length: 50 }, (_, i) => `u${i}@slow.test`), behaviour: { tarpitMs: 150 } },
    { name: 'mx.throttled.test', ip: '127.0.8.50', mailboxes: ['user@throttled.test'], behaviour: { rateLimitAfterSessions: 0, rateLimitAt: 'mail', tarpitMs: 800 } },
    { name: 'mx.polite.test', ip: '127.0.8.40', mailboxes: Array.from({ length: 200 }, (_, i) => `u${i}@polite.test`), behaviour: { maxConcurrentSessions: 2, tarpitMs: 150 } },
  ];
  const input: WorldInput = { ...world, smtp: { ...world.smtp, hosts: [...world.smtp.hosts, ...extra] } };
  return startWorld(input);
}
