// Servers that misbehave: each case must end quickly with a clear outcome, the process must not
// crash, and no socket may outlive its session, even 200 at a time.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import { createResolver } from './resolve.ts';
import { runSession } from './session.ts';
import { prober, request, testConfig } from './testing.ts';

let world: WorldHandle;
let probe: ReturnType<typeof prober>;
const quick = { connectMs: 2_000, greetingMs: 400, commandMs: 1_000, sessionMs: 5_000 };

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  probe = prober(testConfig(world.env));
});
afterAll(() => world.stop());

const sockets = (): number => process.getActiveResourcesInfo().filter((r) => /TCP|TLS/.test(r) && !/Server/.test(r)).length;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

describe('hostile servers end with a clear outcome, quickly', () => {
  it.each([
    ['garbage', 'protocol_error', /malformed reply line/],
    ['flood', 'protocol_error', /100 lines|bytes/],
    ['silent', 'timeout', /no greeting reply within 400 ms/],
    ['halfreply', 'dropped', /middle of a reply/],
  ])('%s.test -> %s', async (name, outcome, detail) => {
    const t = Date.now();
    const run = await probe(request(`${name}.test`, [`mx.${name}.test`], [`user@${name}.test`], { timeouts: quick }));
    expect(run.reply.outcome).toBe(outcome);
    expect(run.reply.detail).toMatch(detail);
    expect(run.reply.results[0]!.state).toBe('not_attempted');
    expect(Date.now() - t).toBeLessThan(2_000);
  });

  it('badtls.test: a broken TLS handshake falls back to clear text on a new connection (TLS used = false)', async () => {
    const run = await probe(request('badtls.test', ['mx.badtls.test'], ['user@badtls.test'], { timeouts: quick }));
    expect(run.reply).toMatchObject({ outcome: 'completed', tls: false, connections: 2 });
    expect(run.reply.detail).toMatch(/TLS handshake failed.*continued in clear/);
    expect(run.reply.results[0]!.reply!.code).toBe(550);
  });

  it('badtls.test without the clear-text fallback: tls_failed', async () => {
    const strict = prober(testConfig(world.env, { PROBE_TLS_CLEAR_FALLBACK: 'false' }));
    const run = await strict(request('badtls.test', ['mx.badtls.test'], ['user@badtls.test'], { timeouts: quick }));
    expect(run.reply).toMatchObject({ outcome: 'tls_failed', tls: false, connections: 1 });
  });

  it('a node shutdown cut ends a running session at once with timeout', async () => {
    const config = testConfig(world.env);
    const cut = new AbortController();
    const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 2_000 });
    const running = runSession(request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test']), { config, nodeId: 't', resolver, signal: cut.signal });
    setTimeout(() => cut.abort(new Error('probe node shutting down')), 200);
    const run = await running;
    expect(run.reply.outcome).toBe('timeout');
    expect(run.reply.detail).toBe('probe node shutting down');
    expect(run.reply.duration_ms).toBeLessThan(1_000);
  });
});

describe('a server that refuses EHLO', () => {
  let server: net.Server;
  const received: string[] = [];
  let port = 0;
  beforeAll(async () => {
    server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.write('220 old.test ESMTP\r\n');
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        for (let i = buffered.indexOf('\r\n'); i !== -1; i = buffered.indexOf('\r\n')) {
          const line = buffered.slice(0, i);
          buffered = buffered.slice(i + 2);
          received.push(line);
          const verb = line.split(' ')[0];
          if (verb === 'EHLO') socket.write('502 5.5.2 Error: command not recognized\r\n');
          else if (verb === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
          else if (verb === 'HELO') socket.write('250 old.test\r\n');
          else socket.write('250 2.0.0 Ok\r\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('falls back to HELO and goes on without extensions (no pipelining, no STARTTLS)', async () => {
    const run = await prober(testConfig(world.env, { SMTP_PORT: String(port) }))(request('old.test', ['127.0.0.1'], ['a@old.test'], { catch_all_probe: false }));
    expect(run.reply.outcome).toBe('completed');
    expect(run.reply.results[0]!.reply!.code).toBe(250);
    expect(received).toEqual(['EHLO probe.test', 'HELO probe.test', 'MAIL FROM:<verify@probe.test>', 'RCPT TO:<a@old.test>', 'RSET', 'QUIT']);
  });
});

describe('200 concurrent sessions', () => {
  it('all end with an outcome and leave no socket open on either side', async () => {
    const before = sockets();
    const mix: [string, string, string][] = [
      ['catchall.test', 'mx.catchall.test', 'completed'],
      ['acme.test', 'mx1.acme.test', 'completed'],
      ['noverify.test', 'mx.noverify.test', 'completed'],
      ['drop.test', 'mx.drop.test', 'dropped'],
      ['halfreply.test', 'mx.halfreply.test', 'dropped'],
      ['garbage.test', 'mx.garbage.test', 'protocol_error'],
      ['flood.test', 'mx.flood.test', 'protocol_error'],
      ['fallback.test', 'mx1.fallback.test', 'connect_failed'],
    ];
    // Generous timeouts: 200 sessions (TLS ones included) share a loaded 2-core machine.
    const timeouts = { connectMs: 10_000, greetingMs: 15_000, commandMs: 15_000, sessionMs: 40_000 };
    const runs = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const [domain, mx] = mix[i % mix.length]!;
        return probe(request(domain, [mx], [`user${i}@${domain}`, `alice@${domain}`], { timeouts }));
      }),
    );
    runs.forEach((run, i) => expect(run.reply.outcome, `session ${i}`).toBe(mix[i % mix.length]![2]));
    const settled = await until(() => sockets() <= before && [...world.hosts.values()].every((h) => h.sessionsCurrent === 0), 5_000);
    expect({ settled, sockets: sockets(), before, open: [...world.hosts.values()].filter((h) => h.sessionsCurrent > 0).map((h) => h.name) }).toMatchObject({ settled: true });
  }, 60_000);
});
