// The UDP pool on both socket implementations (udp_batch addon and node:dgram): reply matching,
// hostile datagrams, random ids and ports, socket errors, and the fallback when the addon is absent.
import { afterEach, describe, expect, it } from 'vitest';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packet } from 'dns2';
import { UdpPool, type UdpTransport } from './udp-pool.ts';
import { loadUdpBatch, type UdpBatchAddon } from './native.ts';
import { encodeQuery } from './wire.ts';
import { parseServer } from './servers.ts';
import type { ExchangeOutcome, ExchangeRequest } from './exchange.ts';
import { reply, sleep, startTestDnsServer, type TestDnsServer, type TestScript } from './test-server.ts';

const T = Packet.TYPE;
const ADDON = loadUdpBatch();
const LIMITS = { maxRecords: 100, maxResponseBytes: 65_535 };

let server: TestDnsServer | undefined;
let pool: UdpPool | undefined;
const spoofers: dgram.Socket[] = [];

afterEach(async () => {
  pool?.close();
  pool = undefined;
  await server?.close();
  server = undefined;
  for (const s of spoofers.splice(0)) s.close();
});

function request(address: string, name: string, timeoutMs = 500): ExchangeRequest {
  return { server: parseServer(address), name, type: 'A', timeoutMs, encode: (id) => encodeQuery({ id, name, type: 'A', edns: null }) };
}

function addresses(outcome: ExchangeOutcome): string[] {
  return outcome.kind === 'reply' ? outcome.message.answers.map((a) => (a.type === 'A' ? a.address : '?')) : [outcome.kind];
}

async function bound(address: string, port = 0): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  spoofers.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.bind(port, address, () => resolve());
  });
  return s;
}

describe.each(['native', 'dgram'] as const)('UdpPool over %s', (transport: Exclude<UdpTransport, 'auto'>) => {
  if (transport === 'native' && !ADDON) {
    // The project's machines build it in `npm ci`; a missing build is a failure, not a skip.
    it('needs the udp_batch addon built', () => expect.fail('packages/mailsec/native is not built: run `npm rebuild @dv/mailsec` (needs gcc, make, python3)'));
    return;
  }
  const start = async (script: TestScript, options: Partial<typeof LIMITS> & { size?: number } = {}) => {
    server = await startTestDnsServer(script);
    pool = new UdpPool({ size: 4, ...LIMITS, ...options, transport });
    expect(pool.transport).toBe(transport);
    return { s: server, p: pool };
  };

  it('ignores forged replies from another address or port, even with the right id and question', async () => {
    // 127.0.0.2 on the server's own port, and the server's address on another port.
    const forger: { otherAddress?: dgram.Socket } = {};
    const otherPort = await bound('127.0.0.1');
    const { s, p } = await start(async (q) => {
      const forged = reply(q, { answers: [{ type: T.A, address: '203.0.113.66' }] });
      otherPort.send(forged, q.sourcePort, '127.0.0.1');
      forger.otherAddress?.send(forged, q.sourcePort, '127.0.0.1');
      await sleep(40);
      return [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })];
    });
    forger.otherAddress = await bound('127.0.0.2', s.port);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => p.exchange(request(s.address, `n${i}.test`))));
    for (const outcome of outcomes) expect(addresses(outcome)).toEqual(['192.0.2.1']);
  });

  it('drops an oversized datagram and still takes the good reply after it', async () => {
    const { s, p } = await start((q) => [
      reply(q, { answers: Array.from({ length: 30 }, () => ({ type: T.A, address: '203.0.113.66' })).concat(Array.from({ length: 20 }, () => ({ type: T.TXT, data: ['x'.repeat(200)] }) as never)) }),
      reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] }),
    ], { maxResponseBytes: 700 });
    expect(addresses(await p.exchange(request(s.address, 'big.test')))).toEqual(['192.0.2.1']);
    expect(p.dropped).toBeGreaterThanOrEqual(1);
  });

  it('survives a burst of junk larger than one receive batch', async () => {
    const { s, p } = await start((q) => [
      ...Array.from({ length: 80 }, (_, i) => (i % 2 ? Buffer.alloc(i) : reply(q, { id: (q.id + 1 + i) & 0xffff, answers: [{ type: T.A, address: '203.0.113.66' }] }))),
      reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] }),
    ]);
    expect(addresses(await p.exchange(request(s.address, 'burst.test', 2000)))).toEqual(['192.0.2.1']);
    expect(p.dropped).toBeGreaterThanOrEqual(80);
  });

  it('gives every outstanding query its own random id, spread over random source ports', async () => {
    const { s, p } = await start(async (q) => {
      await sleep(30);
      return [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })];
    });
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => p.exchange(request(s.address, `n${i}.test`, 2000))));
    expect(outcomes.every((o) => o.kind === 'reply')).toBe(true);
    const ids = s.queries.map((q) => q.id);
    expect(new Set(ids).size).toBe(200);
    // Sequential ids would be guessable: successive ids must not step by a constant.
    const steps = new Set(ids.slice(1).map((id, i) => (id - (ids[i] as number) + 0x10000) & 0xffff));
    expect(steps.size).toBeGreaterThan(150);
    expect(s.udpSourcePorts.size).toBe(4);
    expect(new Set(p.localPorts())).toEqual(s.udpSourcePorts);
  });

  it('times out each query on its own and counts nothing twice', async () => {
    const { s, p } = await start((q) => (q.name === 'silent.test' ? [] : [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })]));
    const started = Date.now();
    const [silent, loud] = await Promise.all([p.exchange(request(s.address, 'silent.test', 150)), p.exchange(request(s.address, 'loud.test', 150))]);
    expect(silent.kind).toBe('timeout');
    expect(addresses(loud)).toEqual(['192.0.2.1']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(p.outstanding).toBe(0);
  });

  it('fails queries to a closed port with the socket error, and opens a fresh socket afterwards', async () => {
    const probe = await bound('127.0.0.1');
    const closedPort = probe.address().port;
    probe.close();
    spoofers.splice(spoofers.indexOf(probe), 1);
    pool = new UdpPool({ size: 1, ...LIMITS, transport });
    const started = Date.now();
    const outcome = await pool.exchange(request(`127.0.0.1:${closedPort}`, 'a.test', 3000));
    expect(outcome).toMatchObject({ kind: 'error', error: expect.stringContaining('ECONNREFUSED') });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pool.socketCount).toBe(0);
    server = await startTestDnsServer((q) => [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })]);
    expect(addresses(await pool.exchange(request(server.address, 'a.test')))).toEqual(['192.0.2.1']);
  });

  it('ends pending queries on close', async () => {
    const { s, p } = await start(() => []);
    const pending = p.exchange(request(s.address, 'a.test', 5000));
    await sleep(20);
    p.close();
    expect(await pending).toEqual({ kind: 'error', error: 'resolver closed' });
  });
});

describe('UdpPool without the addon', () => {
  it('loads nothing from a missing or broken module', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-udp-batch-'));
    try {
      const broken = join(dir, 'udp_batch.node');
      writeFileSync(broken, 'not a shared object');
      expect(loadUdpBatch(join(dir, 'missing.node'))).toBeNull();
      expect(loadUdpBatch(broken)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('falls back to node:dgram when the addon is absent, and refuses `native`', async () => {
    server = await startTestDnsServer((q) => [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })]);
    pool = new UdpPool({ size: 2, ...LIMITS, addon: null });
    expect(pool.transport).toBe('dgram');
    expect(addresses(await pool.exchange(request(server.address, 'a.test')))).toEqual(['192.0.2.1']);
    expect(() => new UdpPool({ size: 2, ...LIMITS, transport: 'native', addon: null })).toThrow(/not available/);
  });

  it('uses node:dgram for a server the addon cannot open', async () => {
    const refusing: UdpBatchAddon = {
      supported: true,
      open: () => {
        throw new Error('udp_batch.open: not a numeric IP address');
      },
      send: () => -9,
      close: () => undefined,
      localPort: () => -1,
    };
    server = await startTestDnsServer((q) => [reply(q, { answers: [{ type: T.A, address: '192.0.2.1' }] })]);
    pool = new UdpPool({ size: 2, ...LIMITS, addon: refusing });
    expect(addresses(await pool.exchange(request(server.address, 'a.test')))).toEqual(['192.0.2.1']);
    expect(server.udpSourcePorts.size).toBe(1);
  });
});

describe('udp_batch addon arguments', () => {
  const addon = ADDON as UdpBatchAddon;
  const noop = () => undefined;

  it('refuses what it cannot use safely', () => {
    const slots = Buffer.alloc(4 * 512);
    const lens = new Int32Array(4);
    expect(() => addon.open('resolver.example', 53, slots, lens, 512, noop)).toThrow(/numeric IP/);
    expect(() => addon.open('fe80::1%lo', 53, slots, lens, 512, noop)).toThrow(/numeric IP/);
    expect(() => addon.open('127.0.0.1', 0, slots, lens, 512, noop)).toThrow(/bad arguments/);
    expect(() => addon.open('127.0.0.1', 53, slots, lens, 513, noop)).toThrow(/bad arguments/); // slots too small
    expect(() => addon.open('127.0.0.1', 53, slots, new Float64Array(4) as never, 512, noop)).toThrow(/bad arguments/);
    expect(() => addon.send({} as never, [], 0)).toThrow(TypeError);
  });

  it('reports a closed socket on send instead of writing to a stale descriptor', () => {
    const handle = addon.open('127.0.0.1', 53, Buffer.alloc(512), new Int32Array(1), 512, noop);
    expect(addon.localPort(handle)).toBeGreaterThan(0);
    expect(() => addon.send(handle, ['not a buffer' as never], 1)).toThrow(TypeError);
    addon.close(handle);
    addon.close(handle);
    expect(addon.send(handle, [Buffer.from('x')], 1)).toBeLessThan(0);
    expect(addon.localPort(handle)).toBe(-1);
  });
});
