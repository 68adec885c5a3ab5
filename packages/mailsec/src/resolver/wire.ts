// DNS messages on the wire, through dns2's Packet codec.
// dns2's Packet.parse keeps reading after a record whose RDATA length disagrees with its decoder,
// so one hostile record can shift every following one. Decoding here walks the message itself,
// hands each RDATA to dns2's per-type decoder on its own bounded window, and re-aligns on the
// declared RDLENGTH: a reply either decodes cleanly or is rejected as a whole.
import { Packet } from 'dns2';
import type { Header, Reader, Resource } from 'dns2';
import { RR_TYPE, type Rr, type RrType } from './types.ts';

const OPT_TYPE = 41;
const CLASS_IN = 1;
const MAX_TTL_S = 0x7fffffff;

export interface QueryOptions {
  id: number;
  name: string;
  type: RrType;
  /** null sends a plain RFC 1035 query (fallback for servers that reject EDNS). */
  edns: { udpPayloadSize: number; dnssecOk: boolean } | null;
}

export function encodeQuery(q: QueryOptions): Buffer {
  const packet = new Packet();
  packet.header = new Packet.Header({ id: q.id, rd: 1 });
  packet.questions.push(new Packet.Question(q.name, RR_TYPE[q.type], CLASS_IN));
  if (q.edns) {
    // dns2's typings omit the options argument; the OPT record carries the payload size and DO bit.
    const edns = Packet.Resource.EDNS as unknown as (rdata: object[], opts: { udpPayloadSize: number; doFlag: boolean }) => Resource;
    packet.additionals.push(edns([], { udpPayloadSize: q.edns.udpPayloadSize, doFlag: q.edns.dnssecOk }));
  }
  return packet.toBuffer();
}

export interface DecodedMessage {
  id: number;
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc: boolean;
  ad: boolean;
  /** Full RCODE, including the EDNS extended bits. */
  rcode: number;
  question: { name: string; type: number; class: number };
  answers: Rr[];
  authorities: Rr[];
}

export interface DecodeLimits {
  /** Upper bound on answer + authority + additional records; more is treated as hostile. */
  maxRecords: number;
}

/** Reads just the transaction id, so a reply can be routed before the costly decode. */
export function peekId(buf: Buffer): number | null {
  return buf.length >= 12 ? buf.readUInt16BE(0) : null;
}

/** Decodes a reply; throws on anything malformed (callers drop such replies). */
export function decodeMessage(buf: Buffer, limits: DecodeLimits): DecodedMessage {
  if (buf.length < 12) throw new Error('message shorter than a DNS header');
  const reader = new Packet.Reader(buf, 0);
  const header = Packet.Header.parse(reader) as Header & { ad: number };
  if (header.qdcount !== 1) throw new Error(`expected one question, got ${header.qdcount}`);
  const total = header.ancount + header.nscount + header.arcount;
  if (total > limits.maxRecords) throw new Error(`too many records (${total})`);
  const question = Packet.Question.parse(reader);
  const answers: Rr[] = [];
  const authorities: Rr[] = [];
  let rcode = header.rcode;
  const sections: Array<[number, Rr[] | null]> = [
    [header.ancount, answers],
    [header.nscount, authorities],
    [header.arcount, null],
  ];
  for (const [count, into] of sections) {
    for (let i = 0; i < count; i++) {
      const raw = readRecord(reader, buf);
      if (raw.type === OPT_TYPE) {
        // RFC 6891 6.1.3: the OPT TTL's top byte holds the upper 8 bits of a 12-bit RCODE.
        rcode = (((raw.ttl >>> 24) & 0xff) << 4) | (rcode & 0xf);
        continue;
      }
      if (into && raw.rr) into.push(raw.rr);
    }
  }
  return {
    id: header.id,
    qr: header.qr === 1,
    opcode: header.opcode,
    aa: header.aa === 1,
    tc: header.tc === 1,
    ad: header.ad === 1,
    rcode,
    question: { name: question.name, type: question.type, class: question.class },
    answers,
    authorities,
  };
}

interface RawRecord {
  type: number;
  ttl: number;
  rr: Rr | null;
}

function readRecord(reader: Reader, buf: Buffer): RawRecord {
  const name = Packet.Name.decode(reader);
  const type = reader.read(16);
  const cls = reader.read(16);
  const wireTtl = reader.read(32);
  const rdlength = reader.read(16);
  const start = reader.offset;
  const end = start + rdlength * 8;
  if (end > buf.length * 8) throw new Error('RDATA runs past the end of the message');
  // RFC 2181 8: a TTL with the top bit set is treated as zero.
  const ttl = wireTtl > MAX_TTL_S ? 0 : wireTtl;
  let rr: Rr | null = null;
  if (type !== OPT_TYPE && cls === CLASS_IN) rr = decodeRdata(buf, start, rdlength, name, type, ttl);
  reader.offset = end;
  return { type, ttl: wireTtl, rr };
}

type Dns2Decoder = { decode?: (this: Record<string, unknown>, reader: Reader, length: number) => Record<string, unknown> };
const dns2Decoders = Packet.Resource as unknown as Record<string, Dns2Decoder | undefined>;

/** Runs dns2's decoder for `typeName` on a reader confined to this record's RDATA. */
function viaDns2(typeName: string, buf: Buffer, start: number, length: number): Record<string, unknown> {
  const decoder = dns2Decoders[typeName]?.decode;
  if (!decoder) throw new Error(`no dns2 decoder for ${typeName}`);
  // The reader spans the whole message so compression pointers resolve, but reading past this
  // record's RDATA is an error.
  const reader = new Packet.Reader(buf, start);
  const target: Record<string, unknown> = {};
  const out = decoder.call(target, reader, length);
  if (reader.offset > start + length * 8) throw new Error(`${typeName} RDATA overran its length`);
  return out;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function decodeRdata(buf: Buffer, start: number, length: number, name: string, type: number, ttl: number): Rr | null {
  const base = { name, ttl };
  const byteStart = start / 8;
  switch (type) {
    case RR_TYPE.A: {
      if (length !== 4) throw new Error('A RDATA must be 4 bytes');
      return { ...base, type: 'A', address: str(viaDns2('A', buf, start, length).address) };
    }
    case RR_TYPE.AAAA: {
      if (length !== 16) throw new Error('AAAA RDATA must be 16 bytes');
      return { ...base, type: 'AAAA', address: str(viaDns2('AAAA', buf, start, length).address) };
    }
    case RR_TYPE.MX: {
      const d = viaDns2('MX', buf, start, length);
      return { ...base, type: 'MX', priority: num(d.priority), exchange: str(d.exchange) };
    }
    case RR_TYPE.NS:
      return { ...base, type: 'NS', host: str(viaDns2('NS', buf, start, length).ns) };
    case RR_TYPE.CNAME:
      return { ...base, type: 'CNAME', target: str(viaDns2('CNAME', buf, start, length).domain) };
    case RR_TYPE.PTR:
      return { ...base, type: 'PTR', target: str(viaDns2('PTR', buf, start, length).domain) };
    case RR_TYPE.TXT:
    case RR_TYPE.SPF: {
      const d = viaDns2('TXT', buf, start, length);
      const strings = Array.isArray(d.data) ? d.data.map(String) : [];
      return type === RR_TYPE.TXT ? { ...base, type: 'TXT', strings } : { ...base, type: 'SPF', strings };
    }
    case RR_TYPE.SOA: {
      const d = viaDns2('SOA', buf, start, length);
      return {
        ...base,
        type: 'SOA',
        mname: str(d.primary),
        rname: str(d.admin),
        serial: num(d.serial),
        refresh: num(d.refresh),
        retry: num(d.retry),
        expire: num(d.expiration),
        minimum: num(d.minimum),
      };
    }
    case RR_TYPE.SRV: {
      const d = viaDns2('SRV', buf, start, length);
      return { ...base, type: 'SRV', priority: num(d.priority), weight: num(d.weight), port: num(d.port), target: str(d.target) };
    }
    case RR_TYPE.DNSKEY: {
      if (length < 4) throw new Error('DNSKEY RDATA too short');
      const d = viaDns2('DNSKEY', buf, start, length);
      return {
        ...base,
        type: 'DNSKEY',
        flags: num(d.flags),
        protocol: num(d.protocol),
        algorithm: num(d.algorithm),
        keyTag: num(d.keyTag),
        publicKey: str(d.key),
      };
    }
    case RR_TYPE.CAA: {
      // Decoded here: dns2's CAA decoder trusts the tag length byte.
      if (length < 2) throw new Error('CAA RDATA too short');
      const tagLength = buf[byteStart + 1] ?? 0;
      if (tagLength > length - 2) throw new Error('CAA tag longer than its RDATA');
      const tagStart = byteStart + 2;
      return {
        ...base,
        type: 'CAA',
        flags: buf[byteStart] ?? 0,
        tag: buf.subarray(tagStart, tagStart + tagLength).toString('latin1'),
        value: buf.subarray(tagStart + tagLength, byteStart + length).toString('utf8'),
      };
    }
    case RR_TYPE.DS: {
      // dns2 has no DS codec: key tag (16), algorithm (8), digest type (8), digest (RFC 4034 5.1).
      if (length < 4) throw new Error('DS RDATA too short');
      return {
        ...base,
        type: 'DS',
        keyTag: buf.readUInt16BE(byteStart),
        algorithm: buf[byteStart + 2] ?? 0,
        digestType: buf[byteStart + 3] ?? 0,
        digest: buf.subarray(byteStart + 4, byteStart + length).toString('hex'),
      };
    }
    default:
      return null; // a type we do not model (RRSIG, NSEC, ...): skipped, not an error
  }
}
