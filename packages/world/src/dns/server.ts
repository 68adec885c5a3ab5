// Authoritative DNS server (UDP and TCP on one loopback port) answering from a world's DNS data.
import { Packet } from 'dns2';
import type { Packet as DnsPacket } from 'dns2';
import { parseRecords } from '../load.ts';
import { normalizeName } from '../names.ts';
import { dnsSchema } from '../schema.ts';
import type { DnsRecordInput, DnsSectionInput, NameBehaviour, NameBehaviourInput } from '../schema.ts';
import { Timers } from '../timers.ts';
import { CLASS_ANY, CLASS_IN, OPT_TYPE, rrTypeName } from '@dv/net';
import { toResource } from './wire.ts';
import { listenDns, type DnsSend, type DnsTransport } from './transport.ts';
import { Zone } from './zone.ts';

export type { DnsTransport } from './transport.ts';

export interface DnsQuery {
  name: string;
  type: string;
  transport: DnsTransport;
}

export interface DnsServerOptions {
  host?: string;
  port?: number;
  // Added to every answer, on top of per-name latency.
  latencyMs?: number;
}

export interface DnsServerHandle {
  host: string;
  port: number;
  // "host:port", the form DNS_SERVERS and Resolver#setServers take.
  server: string;
  // Every question received, in order; tests count lookups with it (e.g. the SPF 10-lookup limit).
  queries: DnsQuery[];
  // Replaces every record; per-name behaviours too when given (e.g. one SPF test-suite scenario each).
  setRecords(records: DnsRecordInput[], behaviours?: Record<string, NameBehaviourInput>): void;
  stop(): Promise<void>;
}

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
// RFC 8020-era resolvers and the 2020 DNS flag day settled on 1232 bytes as a safe EDNS payload.
const EDNS_PAYLOAD_BYTES = 1232;

export async function startDnsServer(section: DnsSectionInput, options: DnsServerOptions = {}): Promise<DnsServerHandle> {
  const dns = dnsSchema.parse(section);
  const host = options.host ?? '127.0.0.1';
  const baseLatencyMs = options.latencyMs ?? 0;
  let behaviours = new Map<string, NameBehaviour>(Object.entries(dns.behaviours));
  let zone = new Zone(dns.records, dns.signedZones);
  const timers = new Timers();
  const queries: DnsQuery[] = [];

  const handle = (request: DnsPacket, send: DnsSend, transport: DnsTransport) => {
    const question = request.questions[0];
    const qname = normalizeName(question?.name ?? '');
    const behaviour = behaviours.get(qname);
    queries.push({ name: qname, type: rrTypeName(question?.type ?? 0) ?? String(question?.type), transport });
    if (behaviour?.timeout) return;
    const response = respond(request, zone, behaviour, transport);
    timers.later(baseLatencyMs + (behaviour?.latencyMs ?? 0), () => {
      // The client may have gone away (UDP socket closed, TCP reset); an unsent answer is fine.
      void Promise.resolve()
        .then(() => send(response))
        .catch(() => undefined);
    });
  };
  const listener = await listenDns(handle, { host, port: options.port });
  const { port } = listener;

  let stopping: Promise<void> | undefined;
  return {
    host,
    port,
    server: `${host}:${port}`,
    queries,
    setRecords(records, newBehaviours) {
      const parsed = dnsSchema.parse({ records: parseRecords(records), behaviours: newBehaviours ?? {}, signedZones: dns.signedZones });
      zone = new Zone(parsed.records, parsed.signedZones);
      if (newBehaviours !== undefined) behaviours = new Map(Object.entries(parsed.behaviours));
    },
    stop() {
      stopping ??= (async () => {
        timers.cancelAll();
        await listener.stop();
      })();
      return stopping;
    },
  };
}

function respond(request: DnsPacket, zone: Zone, behaviour: NameBehaviour | undefined, transport: DnsTransport): DnsPacket {
  const response = Packet.createResponseFromRequest(request);
  const header = response.header as DnsPacket['header'] & { ad: 0 | 1 };
  header.aa = 1;
  // Services use this server as their resolver, so it claims recursion like one.
  header.ra = 1;
  // RFC 6891 §7: a server that understands EDNS answers an OPT query with an OPT record.
  if (request.additionals.some((r) => r.type === OPT_TYPE)) {
    const edns = Packet.Resource.EDNS as unknown as (rdata: object[], opts: { udpPayloadSize: number }) => DnsPacket['additionals'][number];
    response.additionals.push(edns([], { udpPayloadSize: EDNS_PAYLOAD_BYTES }));
  }
  const question = request.questions[0];
  if (request.header.opcode !== 0) return withRcode(response, RCODE.NOTIMP);
  if (question === undefined || request.questions.length !== 1) return withRcode(response, RCODE.FORMERR);
  if (question.class !== CLASS_IN && question.class !== CLASS_ANY) return withRcode(response, RCODE.REFUSED);
  if (behaviour?.servfail) return withRcode(response, RCODE.SERVFAIL);
  if (behaviour?.truncate && transport === 'udp') {
    header.tc = 1;
    return response;
  }
  const answer = zone.lookup(question.name, question.type);
  response.answers.push(...answer.answers.map(toResource));
  response.authorities.push(...answer.authority.map(toResource));
  header.ad = answer.authenticated ? 1 : 0;
  return withRcode(response, RCODE[answer.rcode]);
}

function withRcode(response: DnsPacket, rcode: number): DnsPacket {
  response.header.rcode = rcode;
  return response;
}
