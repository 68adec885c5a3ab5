// DNS messages on the wire: a small byte-level codec for exactly what the resolver sends and
// reads. (dns2's Packet codec reads and writes bit by bit; at tens of thousands of queries per
// second it cost ~90 us per message, ten times the rest of the query path, so the hot path no
// longer goes through it. dns2 still builds the test servers' replies.)
// Decoding walks the message itself and decodes each RDATA on its own bounded window, re-aligning
// on the declared RDLENGTH: a reply either decodes cleanly or is rejected as a whole. Names are
// decompressed with the RFC 1035 4.1.4 pointer rules, guarded against loops and over-long names.
import { CLASS_IN, OPT_TYPE } from '@dv/net';
import { RR_TYPE, type Rr, type RrType } from './types.ts';

const MAX_TTL_S = 0x7fffffff;
/** RFC 1035 2.3.4: a name is at most 255 octets on the wire, a label at most 63. */
const MAX_NAME_OCTETS = 255;
const MAX_LABEL_OCTETS = 63;
/** Compression pointers followed in one name; a legal name needs far fewer. */
const MAX_POINTERS = 64;

export interface QueryOptions {
  id: number;
  name: string;
  type: RrType;
  /** null sends a plain RFC 1035 query (fallback for servers that reject EDNS). */
  edns: { udpPayloadSize: number; dnssecOk: boolean } | null;
}

/** A query: header (RD set), one question, and an EDNS0 OPT record unless `edns` is null. */
export function encodeQuery(q: QueryOptions): Buffer {
  // One pass over the name, no label array (this runs once per query): each "." becomes the next
  // label's length byte, so the wire name is name.length + 2 octets ("" is the root: 1 octet).
  const name = q.name;
  let labelStart = 0;
  for (let i = 0; i <= name.length; i++) {
    if (i < name.length && name.charCodeAt(i) !== 0x2e) continue;
    const length = i - labelStart;
    if ((length === 0 && name !== '') || length > MAX_LABEL_OCTETS) throw new Error(`bad label in "${name}"`);
    labelStart = i + 1;
  }
  const nameLength = name === '' ? 1 : name.length + 2;
  if (nameLength > MAX_NAME_OCTETS) throw new Error('name longer than 255 octets');
  const buf = Buffer.allocUnsafe(12 + nameLength + 4 + (q.edns ? 11 : 0));
  buf.writeUInt16BE(q.id & 0xffff, 0);
  buf.writeUInt16BE(0x0100, 2); // RD
  buf.writeUInt16BE(1, 4);
  buf.writeUInt32BE(0, 6);
  buf.writeUInt16BE(q.edns ? 1 : 0, 10);
  let at = 12;
  if (name !== '') {
    let lengthAt = at++;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c === 0x2e) {
        buf[lengthAt] = at - lengthAt - 1;
        lengthAt = at++;
      } else {
        // Query names are ASCII (normalizeQueryName); like a latin1 write, one byte per character.
        buf[at++] = c & 0xff;
      }
    }
    buf[lengthAt] = at - lengthAt - 1;
  }
  buf[at++] = 0;
  buf.writeUInt16BE(RR_TYPE[q.type], at);
  buf.writeUInt16BE(CLASS_IN, at + 2);
  at += 4;
  if (q.edns) {
    // OPT (RFC 6891 6.1.2): root owner, class = UDP payload size, TTL = ext-rcode/version/DO.
    buf[at] = 0;
    buf.writeUInt16BE(OPT_TYPE, at + 1);
    buf.writeUInt16BE(q.edns.udpPayloadSize, at + 3);
    buf.writeUInt32BE(q.edns.dnssecOk ? 0x8000 : 0, at + 5);
    buf.writeUInt16BE(0, at + 9);
  }
  return buf;
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
  const flags = buf.readUInt16BE(2);
  const qdcount = buf.readUInt16BE(4);
  const counts = [buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10)] as const;
  if (qdcount !== 1) throw new Error(`expected one question, got ${qdcount}`);
  const total = counts[0] + counts[1] + counts[2];
  if (total > limits.maxRecords) throw new Error(`too many records (${total})`);
  const qname = decodeName(buf, 12);
  if (qname.next + 4 > buf.length) throw new Error('question runs past the end of the message');
  const question = { name: qname.name, type: buf.readUInt16BE(qname.next), class: buf.readUInt16BE(qname.next + 2) };
  let at = qname.next + 4;
  const answers: Rr[] = [];
  const authorities: Rr[] = [];
  let rcode = flags & 0xf;
  // Answer, authority, additional (the last is read for the OPT record only).
  for (let section = 0; section < 3; section++) {
    const count = counts[section] as number;
    const into = section === 0 ? answers : section === 1 ? authorities : null;
    for (let i = 0; i < count; i++) {
      const raw = readRecord(buf, at);
      at = raw.next;
      if (raw.type === OPT_TYPE) {
        // RFC 6891 6.1.3: the OPT TTL's top byte holds the upper 8 bits of a 12-bit RCODE.
        rcode = (((raw.ttl >>> 24) & 0xff) << 4) | (rcode & 0xf);
        continue;
      }
      if (into && raw.rr) into.push(raw.rr);
    }
  }
  return {
    id: buf.readUInt16BE(0),
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >>> 11) & 0xf,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    ad: (flags & 0x0020) !== 0,
    rcode,
    question,
    answers,
    authorities,
  };
}

/**
 * A possibly compressed name at `offset`: its text (labels joined by ".", no trailing dot, "" for
 * the root) and the offset right after it in the original position. Pointers must lead to an
 * earlier offset than the one they were read at, so they cannot loop.
 */
export function decodeName(buf: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let at = offset;
  let next = -1;
  let octets = 1;
  let pointers = 0;
  for (;;) {
    if (at >= buf.length) throw new Error('name runs past the end of the message');
    const len = buf[at] as number;
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= buf.length) throw new Error('name pointer runs past the end of the message');
      const target = ((len & 0x3f) << 8) | (buf[at + 1] as number);
      if (target >= at || ++pointers > MAX_POINTERS) throw new Error('bad name compression pointer');
      if (next < 0) next = at + 2;
      at = target;
      continue;
    }
    if (len & 0xc0) throw new Error(`invalid label length byte 0x${len.toString(16)}`);
    if (len === 0) break;
    octets += len + 1;
    if (octets > MAX_NAME_OCTETS) throw new Error('name longer than 255 octets');
    if (at + 1 + len > buf.length) throw new Error('label runs past the end of the message');
    labels.push(buf.toString('latin1', at + 1, at + 1 + len));
    at += 1 + len;
  }
  return { name: labels.join('.'), next: next < 0 ? at + 1 : next };
}

interface RawRecord {
  type: number;
  ttl: number;
  rr: Rr | null;
  next: number;
}

function readRecord(buf: Buffer, offset: number): RawRecord {
  const owner = decodeName(buf, offset);
  const at = owner.next;
  if (at + 10 > buf.length) throw new Error('record header runs past the end of the message');
  const type = buf.readUInt16BE(at);
  const cls = buf.readUInt16BE(at + 2);
  const wireTtl = buf.readUInt32BE(at + 4);
  const rdlength = buf.readUInt16BE(at + 8);
  const start = at + 10;
  const end = start + rdlength;
  if (end > buf.length) throw new Error('RDATA runs past the end of the message');
  // RFC 2181 8: a TTL with the top bit set is treated as zero.
  const ttl = wireTtl > MAX_TTL_S ? 0 : wireTtl;
  let rr: Rr | null = null;
  if (type !== OPT_TYPE && cls === CLASS_IN) rr = decodeRdata(buf, start, end, owner.name, type, ttl);
  return { type, ttl: wireTtl, rr, next: end };
}

/** A name inside RDATA: it may point anywhere earlier, but its own bytes must stay in the RDATA. */
function rdataName(buf: Buffer, at: number, end: number): { name: string; next: number } {
  const n = decodeName(buf, at);
  if (n.next > end) throw new Error('name overruns its RDATA');
  return n;
}

function need(at: number, bytes: number, end: number, what: string): void {
  if (at + bytes > end) throw new Error(`${what} RDATA too short`);
}

function ipv6(buf: Buffer, at: number): string {
  // Lower-case hex groups, the longest run of two or more zero groups shortened to "::" (RFC 5952).
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(buf.readUInt16BE(at + i * 2).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`;
}

// eslint-disable-next-line max-lines-per-function -- one case per record type, read as a table
function decodeRdata(buf: Buffer, start: number, end: number, name: string, type: number, ttl: number): Rr | null {
  const base = { name, ttl };
  const length = end - start;
  switch (type) {
    case RR_TYPE.A: {
      if (length !== 4) throw new Error('A RDATA must be 4 bytes');
      return { ...base, type: 'A', address: `${buf[start]}.${buf[start + 1]}.${buf[start + 2]}.${buf[start + 3]}` };
    }
    case RR_TYPE.AAAA: {
      if (length !== 16) throw new Error('AAAA RDATA must be 16 bytes');
      return { ...base, type: 'AAAA', address: ipv6(buf, start) };
    }
    case RR_TYPE.MX: {
      need(start, 3, end, 'MX');
      return { ...base, type: 'MX', priority: buf.readUInt16BE(start), exchange: rdataName(buf, start + 2, end).name };
    }
    case RR_TYPE.NS:
      return { ...base, type: 'NS', host: rdataName(buf, start, end).name };
    case RR_TYPE.CNAME:
      return { ...base, type: 'CNAME', target: rdataName(buf, start, end).name };
    case RR_TYPE.PTR:
      return { ...base, type: 'PTR', target: rdataName(buf, start, end).name };
    case RR_TYPE.TXT:
    case RR_TYPE.SPF: {
      const strings: string[] = [];
      for (let at = start; at < end; ) {
        const len = buf[at] as number;
        if (at + 1 + len > end) throw new Error(`TXT character-string of ${len} octets overruns its RDATA`);
        strings.push(buf.toString('utf8', at + 1, at + 1 + len));
        at += 1 + len;
      }
      return type === RR_TYPE.TXT ? { ...base, type: 'TXT', strings } : { ...base, type: 'SPF', strings };
    }
    case RR_TYPE.SOA: {
      const mname = rdataName(buf, start, end);
      const rname = rdataName(buf, mname.next, end);
      need(rname.next, 20, end, 'SOA');
      const at = rname.next;
      return {
        ...base,
        type: 'SOA',
        mname: mname.name,
        rname: rname.name,
        serial: buf.readUInt32BE(at),
        refresh: buf.readUInt32BE(at + 4),
        retry: buf.readUInt32BE(at + 8),
        expire: buf.readUInt32BE(at + 12),
        minimum: buf.readUInt32BE(at + 16),
      };
    }
    case RR_TYPE.SRV: {
      need(start, 7, end, 'SRV');
      return {
        ...base,
        type: 'SRV',
        priority: buf.readUInt16BE(start),
        weight: buf.readUInt16BE(start + 2),
        port: buf.readUInt16BE(start + 4),
        target: rdataName(buf, start + 6, end).name,
      };
    }
    case RR_TYPE.DNSKEY: {
      if (length < 4) throw new Error('DNSKEY RDATA too short');
      return {
        ...base,
        type: 'DNSKEY',
        flags: buf.readUInt16BE(start),
        protocol: buf[start + 2] as number,
        algorithm: buf[start + 3] as number,
        keyTag: keyTag(buf, start, end),
        publicKey: buf.toString('base64', start + 4, end),
      };
    }
    case RR_TYPE.CAA: {
      // The tag length byte is checked against the RDATA, not trusted.
      if (length < 2) throw new Error('CAA RDATA too short');
      const tagLength = buf[start + 1] as number;
      if (tagLength > length - 2) throw new Error('CAA tag longer than its RDATA');
      const tagStart = start + 2;
      return {
        ...base,
        type: 'CAA',
        flags: buf[start] as number,
        tag: buf.toString('latin1', tagStart, tagStart + tagLength),
        value: buf.toString('utf8', tagStart + tagLength, end),
      };
    }
    case RR_TYPE.DS: {
      // Key tag (16), algorithm (8), digest type (8), digest (RFC 4034 5.1).
      if (length < 4) throw new Error('DS RDATA too short');
      return {
        ...base,
        type: 'DS',
        keyTag: buf.readUInt16BE(start),
        algorithm: buf[start + 2] as number,
        digestType: buf[start + 3] as number,
        digest: buf.toString('hex', start + 4, end),
      };
    }
    default:
      return null; // a type we do not model (RRSIG, NSEC, ...): skipped, not an error
  }
}

/** RFC 4034 appendix B: the key tag over the whole DNSKEY RDATA. */
function keyTag(buf: Buffer, start: number, end: number): number {
  let ac = 0;
  for (let i = start; i < end; i++) ac += (i - start) & 1 ? (buf[i] as number) : (buf[i] as number) << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}
