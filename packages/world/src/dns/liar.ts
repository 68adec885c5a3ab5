// A lying resolver on loopback, for the tests of the resolver sanity check: hijacking resolvers,
// captive portals and broken sandboxes answer NXDOMAIN to every name, or one address to every
// name. UDP only: nothing it says is long enough to need TCP.
import dns2, { Packet } from 'dns2';
import type { Packet as DnsPacket } from 'dns2';

/** `nxdomain`: every name does not exist. `one_address`: every name has one A record (`address`). */
export type LiarMode = 'nxdomain' | 'one_address';

export interface LyingDnsServer {
  /** `host:port`, ready for DNS_SERVERS. */
  server: string;
  /** Questions received, as `name type` (type as its wire number). */
  queries: string[];
  setMode(mode: LiarMode): void;
  stop(): Promise<void>;
}

export async function startLyingDnsServer(mode: LiarMode, address = '198.51.100.77'): Promise<LyingDnsServer> {
  let current = mode;
  const queries: string[] = [];
  const udp = dns2.createUDPServer((request: DnsPacket, send: (r: DnsPacket) => unknown) => {
    const q = request.questions[0];
    if (!q) return;
    queries.push(`${q.name} ${q.type}`);
    const response = Packet.createResponseFromRequest(request);
    response.header.ra = 1;
    if (current === 'nxdomain') response.header.rcode = 3;
    // Any type asked gets the one A record, as hijacking resolvers do (NODATA would be kinder).
    else response.answers = [{ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 300, address } as DnsPacket['answers'][number]];
    void Promise.resolve(send(response)).catch(() => undefined);
  });
  await udp.listen(0, '127.0.0.1');
  return {
    server: `127.0.0.1:${udp.address().port}`,
    queries,
    setMode(m) {
      current = m;
    },
    stop: () => new Promise<void>((resolve) => udp.close(() => resolve())),
  };
}
