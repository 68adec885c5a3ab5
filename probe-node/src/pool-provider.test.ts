// The scheduler's concurrency limits hold per (provider, source address), and a provider may run
// many MX hosts (every Microsoft 365 tenant has its own): an idle connection to one tenant's host is
// closed before a session dials another tenant's, or the provider would see one more connection
// than the scheduler allowed. Hosts of different providers keep their idle connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type WorldHandle } from '@dv/world';
import { PROBE_DEFAULTS } from './defaults.ts';
import { ConnectionPool } from './pool.ts';
import { createResolver } from './resolve.ts';
import { runSession } from './session.ts';
import { request, testConfig } from './testing.ts';

const HOSTS = [
  { domain: 't1.test', mx: 't1-test.mail.protection.outlook.com', ip: '127.0.6.1' },
  { domain: 't2.test', mx: 't2-test.mail.protection.outlook.com', ip: '127.0.6.2' },
  { domain: 'own1.test', mx: 'mx.own1.test', ip: '127.0.6.3' },
  { domain: 'own2.test', mx: 'mx.own2.test', ip: '127.0.6.4' },
];
let world: WorldHandle;

beforeAll(async () => {
  world = await startWorld({
    dns: { records: HOSTS.flatMap((h) => [{ name: h.domain, type: 'MX' as const, priority: 10, exchange: h.mx }, { name: h.mx, type: 'A' as const, address: h.ip }]) },
    smtp: { hosts: HOSTS.map((h) => ({ name: h.mx, ip: h.ip, mailboxes: [`user@${h.domain}`] })) },
  });
});
afterAll(async () => {
  await world.stop();
});

function pooled() {
  const config = testConfig(world.env);
  const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
  const pool = new ConnectionPool({ idleMs: 10_000, maxIdle: 50, maxTransactions: 100, quitTimeoutMs: PROBE_DEFAULTS.quitTimeoutMs });
  const probe = (i: number) => runSession(request(HOSTS[i]!.domain, [HOSTS[i]!.mx], [`user@${HOSTS[i]!.domain}`]), { config, nodeId: 'test-node', resolver, pool });
  return { pool, probe };
}

describe('idle connections and providers', () => {
  it('closes the idle connection to one Microsoft 365 tenant before dialling another tenant', async () => {
    const { pool, probe } = pooled();
    expect((await probe(0)).reply.outcome).toBe('completed');
    expect(pool.size).toBe(1);
    expect((await probe(1)).reply.outcome).toBe('completed');
    const first = world.hosts.get(HOSTS[0]!.mx)!.sessions.at(-1)!;
    const second = world.hosts.get(HOSTS[1]!.mx)!.sessions.at(-1)!;
    // The first tenant's connection ended before the second tenant's began: never two at once.
    expect(first.endedAtMs).toBeDefined();
    expect(first.endedAtMs!).toBeLessThanOrEqual(second.startedAtMs);
    expect(first.commands.at(-1)?.toUpperCase()).toBe('QUIT');
    expect(pool.size).toBe(1);
    await pool.closeAll();
  });

  it('keeps the idle connection to a host of another provider', async () => {
    const { pool, probe } = pooled();
    expect((await probe(2)).reply.outcome).toBe('completed');
    expect((await probe(3)).reply.outcome).toBe('completed');
    expect(pool.size).toBe(2);
    expect(world.hosts.get(HOSTS[2]!.mx)!.sessions.at(-1)!.endedAtMs).toBeUndefined();
    await pool.closeAll();
  });
});
