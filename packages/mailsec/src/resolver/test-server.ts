// A scripted authoritative DNS server on loopback for the resolver's tests (not exported).
// The script decides, per query, which raw messages go back, so tests can send garbage, wrong
// ids, truncated replies or nothing at all. UDP and TCP listen on the same port, like a real server.
import type net from 'node:net';
import { Packet } from 'dns2';
import type { Packet as PacketType, Resource } from 'dns2';
import { listenDns, type DnsClient, type DnsSend } from '@dv/world/dns-transport';

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
  const handle = async (request: PacketType, send: DnsSend, client: DnsClient, transport: 'udp' | 'tcp') => {
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
  const listener = await listenDns((req, send, transport, client) => void handle(req, send, client, transport));
  return {
    host: listener.host,
    port: listener.port,
    address: listener.server,
    queries,
    udpSourcePorts,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () => listener.stop(),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
