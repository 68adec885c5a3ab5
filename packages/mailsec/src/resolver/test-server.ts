// A scripted authoritative DNS server on loopback for the resolver's tests (not exported).
// The script decides, per query, which raw messages go back, so tests can send garbage, wrong
// ids, truncated replies or nothing at all. UDP and TCP listen on the same port, like a real server.
import dns2, { Packet } from 'dns2';
import type { Packet as PacketType, Resource } from 'dns2';
import type net from 'node:net';

export interface TestQuery {
  name: string;
  type: number;
  id: number;
  transport: 'udp' | 'tcp';
  sourcePort: number;
  request: PacketType;
}

/** Buffers to send back in order; an empty list means "never answer". */
export type TestScript = (query: TestQuery) => Buffer[] | Promise<Buffer[]>;

export interface TestDnsServer {
  host: string;
  port: number;
  /** `host:port`, ready for the resolver's `servers` option. */
  address: string;
  queries: TestQuery[];
  udpSourcePorts: Set<number>;
  maxInFlight: number;
  close(): Promise<void>;
}

export interface ReplyOptions {
  rcode?: number;
  answers?: Array<Partial<Resource> & { type: number }>;
  authorities?: Array<Partial<Resource> & { type: number }>;
  tc?: boolean;
  ad?: boolean;
  id?: number;
  name?: string;
}

/** Encodes a reply to `query` (answers default to the query name, class IN, TTL 300). */
export function reply(query: TestQuery, options: ReplyOptions = {}): Buffer {
  const response = Packet.createResponseFromRequest(query.request);
  const header = response.header as PacketType['header'] & { ad: number };
  header.rcode = options.rcode ?? 0;
  header.tc = options.tc ? 1 : 0;
  header.ad = options.ad ? 1 : 0;
  header.aa = 1;
  if (options.id !== undefined) header.id = options.id;
  if (options.name !== undefined) response.questions = [new Packet.Question(options.name, query.type, 1)];
  const fill = (rr: Partial<Resource> & { type: number }) =>
    ({ name: query.name, class: 1, ttl: 300, ...rr }) as Resource;
  response.answers = (options.answers ?? []).map(fill);
  response.authorities = (options.authorities ?? []).map(fill);
  return response.toBuffer();
}

export function soa(minimum: number, ttl = 3600): Partial<Resource> & { type: number } {
  return { type: Packet.TYPE.SOA, ttl, primary: 'ns.test', admin: 'hostmaster.test', serial: 1, refresh: 3600, retry: 600, expiration: 86400, minimum };
}

export async function startTestDnsServer(script: TestScript): Promise<TestDnsServer> {
  const queries: TestQuery[] = [];
  const udpSourcePorts = new Set<number>();
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const handle = async (request: PacketType, send: (r: Buffer) => Promise<unknown>, client: unknown, transport: 'udp' | 'tcp') => {
    const q = request.questions[0];
    if (!q) return;
    const sourcePort = transport === 'udp' ? (client as { port: number }).port : ((client as net.Socket).remotePort ?? 0);
    if (transport === 'udp') udpSourcePorts.add(sourcePort);
    const query: TestQuery = { name: q.name, type: q.type, id: request.header.id, transport, sourcePort, request };
    queries.push(query);
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    try {
      for (const buf of await script(query)) {
        // dns2's TCP send returns nothing and its UDP send a promise; either may fail once closed.
        await Promise.resolve()
          .then(() => send(buf))
          .catch(() => undefined);
      }
    } finally {
      inFlight--;
    }
  };
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer((req, send, client) => void handle(req, send, client, 'udp'));
    await udp.listen(0, '127.0.0.1');
    const port = udp.address().port;
    const tcp = dns2.createTCPServer((req, send, client) => void handle(req, send, client, 'tcp'));
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!ok) {
      udp.close();
      if (attempt < 10) continue;
      throw new Error('could not bind UDP and TCP on one port');
    }
    return {
      host: '127.0.0.1',
      port,
      address: `127.0.0.1:${port}`,
      queries,
      udpSourcePorts,
      get maxInFlight() {
        return state.maxInFlight;
      },
      close: () =>
        new Promise<void>((resolve) => {
          udp.close();
          tcp.close(() => resolve());
          // Resolver TCP sockets are per query and closed by the client; do not wait on them.
          setTimeout(resolve, 50).unref();
        }),
    };
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
