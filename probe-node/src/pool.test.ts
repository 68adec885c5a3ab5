// Kept-open connections (pool.ts) against the simulated world: a second session to the same host
// reuses the first one's connection (RSET, then a new MAIL transaction), a host never sees more
// connections than sessions in flight, and nothing is left open after closeAll.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { PROBE_DEFAULTS } from './defaults.ts';
import { ConnectionPool, type PooledConnection } from './pool.ts';
import { createResolver } from './resolve.ts';
import { runSession } from './session.ts';
import { fakePooledConnection, request, testConfig } from './testing.ts';

let world: WorldHandle;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
});
afterAll(async () => {
  for (const host of world.hosts.values()) expect(host.dataCommands, host.name).toBe(0);
  await world.stop();
});

function pooled(idleMs: number) {
  const config = testConfig(world.env);
  const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
  const pool = new ConnectionPool({ idleMs, maxIdle: 50, maxTransactions: 100, quitTimeoutMs: PROBE_DEFAULTS.quitTimeoutMs });
  return { pool, probe: (addresses: string[]) => runSession(request('acme.test', ['mx1.acme.test'], addresses), { config, nodeId: 'test-node', resolver, pool }) };
}

const verbs = (lines: string[]) => lines.map((l) => l.split(/[ :]/)[0]!.toUpperCase());

describe('connection reuse', () => {
  it('a second session to the same host reuses the kept connection: RSET, then a new transaction', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessions.length;
    const { pool, probe } = pooled(5_000);
    const first = await probe(['alice@acme.test', 'nobody@acme.test']);
    const second = await probe(['bob@acme.test', 'carol@acme.test']);
    expect(first.reply).toMatchObject({ outcome: 'completed', connections: 1, tls: true });
    expect(second.reply).toMatchObject({ outcome: 'completed', connections: 0, tls: true, mx_used: 'mx1.acme.test', mx_ip: '127.0.1.10' });
    expect(second.reply.detail).toContain('reused an open connection');
    expect(second.reply.results.map((r) => r.reply?.code)).toEqual([250, 552]);
    expect(host.sessions.length - before).toBe(1);
    expect(pool.size).toBe(1);
    await pool.closeAll();
    const session = host.sessions[before]!;
    expect(verbs(session.commands)).toEqual(['EHLO', 'STARTTLS', 'EHLO', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
  });

  it('never has more connections open to a host than sessions in flight, and leaves none open', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    world.reset();
    const { pool, probe } = pooled(5_000);
    // The host allows 5 at once; rounds of 5 concurrent sessions, as a scheduler's slots allow.
    for (let round = 0; round < 6; round++) {
      const runs = await Promise.all(Array.from({ length: 5 }, () => probe(['alice@acme.test'])));
      for (const r of runs) expect(r.reply.outcome).toBe('completed');
      // The scheduler gives a slot back 50 ms after the reply (SLOT_RELEASE_DELAY_MS), so the host
      // has seen the close of a QUIT connection: the same pause here, with or without reuse.
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(host.concurrencyViolations).toBe(0);
    expect(host.maxConcurrentSessions).toBeLessThanOrEqual(5);
    // 30 sessions on far fewer connections.
    expect(host.sessionsTotal).toBeLessThan(30);
    await pool.closeAll();
    await new Promise((r) => setTimeout(r, 200));
    expect(host.sessionsCurrent).toBe(0);
  });

  it('with idle time 0 every session QUITs its own connection', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessions.length;
    const { pool, probe } = pooled(0);
    await probe(['alice@acme.test']);
    await probe(['bob@acme.test']);
    expect(host.sessions.length - before).toBe(2);
    expect(pool.size).toBe(0);
    for (const s of host.sessions.slice(before)) expect(verbs(s.commands).slice(-2)).toEqual(['RSET', 'QUIT']);
  });

  // A kept connection the server has closed, or refuses at MAIL, says nothing about the addresses:
  // the session runs on a fresh connection and reports only what that one said.
  for (const mode of ['close', 'refuse'] as const) {
    it(`a kept connection the server ${mode === 'close' ? 'closed while idle' : 'refuses at MAIL'} is replaced by a fresh one`, async () => {
      const server = await oneTransactionServer(mode);
      const config = testConfig(world.env, { SMTP_PORT: String(server.port) });
      const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
      const pool = new ConnectionPool({ idleMs: 5_000, maxIdle: 10, maxTransactions: 100, quitTimeoutMs: 500 });
      const probe = (addresses: string[]) => runSession(request('oneshot.test', ['[127.0.0.1]'], addresses), { config, nodeId: 'test-node', resolver, pool });
      try {
        const first = await probe(['alice@oneshot.test']);
        await new Promise((r) => setTimeout(r, 50));
        const second = await probe(['alice@oneshot.test', 'bob@oneshot.test']);
        expect(first.reply.outcome).toBe('completed');
        expect(second.reply).toMatchObject({ outcome: 'completed', connections: 1 });
        expect(second.reply.detail ?? '').not.toContain('reused');
        expect(second.reply.results.map((r) => r.reply?.code)).toEqual([250, 550]);
        // The refusal of the stale connection is not reported as something the server said.
        expect(second.observed.some((o) => o.reply.code === 421)).toBe(false);
        expect(server.connections()).toBe(2);
        // 'refuse': the second session did try the kept connection first.
        if (mode === 'refuse') expect(server.mostMails()).toBe(2);
      } finally {
        await pool.closeAll();
        await server.close();
      }
    });
  }
});

describe('which connection stays idle', () => {
  const fakeConnection = (name: string, log: string[]): PooledConnection => fakePooledConnection(name, log);

  it('of two to the same host, the one with fewer errors stays and the other is QUIT before put resolves', async () => {
    const log: string[] = [];
    const pool = new ConnectionPool({ idleMs: 5_000, maxIdle: 10, maxTransactions: 100, quitTimeoutMs: 500 });
    await pool.put('192.0.2.9', { ...fakeConnection('a', log), errors: 3 });
    // Fewer errors: more sessions fit under the host's error budget on it, so it replaces "a".
    await pool.put('192.0.2.9', { ...fakeConnection('b', log), errors: 0 });
    expect(log).toEqual(['a QUIT', 'a closed']);
    // Not fewer than the idle one's: QUIT, the idle one stays.
    await pool.put('192.0.2.9', { ...fakeConnection('c', log), errors: 0 });
    await pool.put('192.0.2.9', { ...fakeConnection('d', log), errors: 2 });
    expect(log).toEqual(['a QUIT', 'a closed', 'c QUIT', 'c closed', 'd QUIT', 'd closed']);
    expect(pool.size).toBe(1);
    const kept = pool.take('192.0.2.9', 'mx.example.test');
    expect(kept?.errors).toBe(0);
    kept!.conn.send([{ verb: 'RSET' }]);
    expect(log.at(-1)).toBe('b RSET');
  });
});

/**
 * A minimal SMTP server for one transaction per connection: after the RSET it either closes the
 * connection ('close', an idle timeout) or answers a second MAIL with 421 ('refuse').
 */
async function oneTransactionServer(mode: 'close' | 'refuse'): Promise<{ port: number; connections: () => number; mostMails: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let mostMails = 0;
  const server = createServer((socket) => {
    connections++;
    let transactions = 0;
    let buffered = '';
    socket.on('error', () => undefined);
    socket.write('220 oneshot.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      for (let i = buffered.indexOf('\r\n'); i >= 0; i = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 2);
        const verb = line.split(/[ :]/)[0]!.toUpperCase();
        if (verb === 'EHLO') socket.write('250-oneshot.test\r\n250 PIPELINING\r\n');
        else if (verb === 'MAIL') {
          mostMails = Math.max(mostMails, ++transactions);
          socket.write(mode === 'refuse' && transactions > 1 ? '421 4.7.0 one transaction per connection\r\n' : '250 OK\r\n');
        }
        else if (verb === 'RCPT') socket.write(line.includes('alice@') ? '250 OK\r\n' : '550 5.1.1 no such user\r\n');
        else if (verb === 'RSET') socket.write('250 OK\r\n', () => (mode === 'close' ? socket.end() : undefined));
        else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('500 not recognised\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    mostMails: () => mostMails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
