// UDP and TCP on one loopback port, as a real DNS server listens: the transport under the world's
// authoritative server and the test servers that answer in their own way (the SPF conformance
// suite's zone, the resolver tests' scripted server), so the bind loop and the shutdown are one.
import type dgram from 'node:dgram';
import type net from 'node:net';
import { TCPServer, UDPServer } from 'dns2';
import type { Packet as DnsPacket } from 'dns2';
import { bindUdp, closeTcp, closeUdp, listenTcp, withPortRetry } from '../ports.ts';

export type DnsTransport = 'udp' | 'tcp';

/** Sends a reply: a packet, or raw bytes (tests send malformed ones). Fails once the client is gone. */
export type DnsSend = (response: DnsPacket | Buffer) => Promise<unknown> | void;

/** Who asked: the datagram's source over UDP, the connection over TCP. */
export type DnsClient = { address: string; port: number } | net.Socket;

export type DnsRequestHandler = (request: DnsPacket, send: DnsSend, transport: DnsTransport, client: DnsClient) => void;

export interface DnsListenOptions {
  host?: string;
  /** A fixed port; absent or 0: a free one, tried again while another process takes it first. */
  port?: number;
}

export interface DnsListener {
  host: string;
  port: number;
  /** "host:port", the form DNS_SERVERS and Resolver#setServers take. */
  server: string;
  /** Closes both sockets and every open TCP connection. */
  stop(): Promise<void>;
}

export async function listenDns(onRequest: DnsRequestHandler, options: DnsListenOptions = {}): Promise<DnsListener> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const createServers = (): { udp: dgram.Socket; tcp: net.Server } => {
    const udp = new UDPServer({ type: 'udp4' });
    const tcp = new TCPServer();
    udp.on('request', (request: DnsPacket, send: DnsSend, client: DnsClient) => onRequest(request, send, 'udp', client));
    tcp.on('request', (request: DnsPacket, send: DnsSend, client: DnsClient) => onRequest(request, send, 'tcp', client));
    tcp.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    });
    return { udp: udp as unknown as dgram.Socket, tcp };
  };

  // A bound UDP socket cannot be re-bound, so a clash on the TCP side means fresh servers.
  const { udp, tcp, port } = await withPortRetry(options.port, async (wanted) => {
    const servers = createServers();
    try {
      const bound = await bindUdp(servers.udp, wanted, host);
      return { ...servers, port: await listenTcp(servers.tcp, bound, host) };
    } catch (error) {
      await Promise.all([closeUdp(servers.udp), closeTcp(servers.tcp)]);
      throw error;
    }
  });
  udp.on('error', () => undefined);

  let stopping: Promise<void> | undefined;
  return {
    host,
    port,
    server: `${host}:${port}`,
    stop() {
      stopping ??= (async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all([closeUdp(udp), closeTcp(tcp)]);
      })();
      return stopping;
    },
  };
}
