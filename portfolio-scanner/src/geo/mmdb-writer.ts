// A small MaxMind DB (format 2.0) writer: sorted address ranges with flat records in, a file the
// `maxmind` reader opens out. It exists because no npm package ships an ASN database in this format
// under a redistributable licence (asn-db.ts builds one from the CC BY 4.0 CSV) and because tests
// need tiny databases they can swap under a running reader. No npm writer is maintained.
// Format: https://maxmind.github.io/MaxMind-DB/

/** A flat record: what the ASN and city databases hold (no nesting needed here). */
export type MmdbRecord = Record<string, string | number>;

/** An inclusive range of addresses as integers: IPv4 in 0..2^32-1 (mapped to ::a.b.c.d in an IPv6 tree). */
export interface MmdbRange {
  start: bigint;
  end: bigint;
  data: MmdbRecord;
}

export interface MmdbWriteOptions {
  /** 6 (IPv4 lives at ::/96, where the reader looks it up) or 4 (IPv4 only). */
  ipVersion: 4 | 6;
  databaseType: string;
  description?: string;
  /** Ranges sorted by start and not overlapping (asn-db.ts normalises the CSV before). */
  ranges: readonly MmdbRange[];
}

const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com', 'ascii')]);
const EMPTY = -1;

/** Builds the whole database in memory; callers write it to disk (atomically, for a watched file). */
export function writeMmdb(opts: MmdbWriteOptions): Buffer {
  const bits = opts.ipVersion === 6 ? 128 : 32;
  const { ranges } = opts;
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] as MmdbRange;
    if (r.start > r.end || (i > 0 && r.start <= (ranges[i - 1] as MmdbRange).end)) throw new Error(`range ${i} is empty, unsorted or overlapping`);
  }

  // Data section: identical records are stored once (most ASNs hold many ranges).
  const data = new DataSection();
  const dataOffsets = ranges.map((r) => data.add(r.data));

  // Tree records are kept as numbers: >= 0 a node, EMPTY nothing, <= -2 a data offset (-2 - offset).
  const left: number[] = [];
  const right: number[] = [];
  const build = (prefix: bigint, depth: number, i: number, j: number): number => {
    if (i === j) return EMPTY;
    const blockEnd = prefix + (1n << BigInt(bits - depth)) - 1n;
    const first = ranges[i] as MmdbRange;
    if (j - i === 1 && first.start <= prefix && first.end >= blockEnd) return -2 - (dataOffsets[i] as number);
    const node = left.length;
    left.push(EMPTY);
    right.push(EMPTY);
    const mid = prefix + (1n << BigInt(bits - depth - 1));
    // Ranges starting below mid go left; ranges ending at or above mid go right (one may do both).
    const m = lowerBound(ranges, i, j, (r) => r.start >= mid);
    const k = lowerBound(ranges, i, j, (r) => r.end >= mid);
    left[node] = build(prefix, depth + 1, i, m);
    right[node] = build(mid, depth + 1, k, j);
    return node;
  };
  const root = build(0n, 0, 0, ranges.length);
  if (root < 0) {
    // The whole space is one record or empty: the tree still needs a root node.
    left.push(root);
    right.push(root);
  }

  const nodeCount = left.length;
  const dataBytes = data.bytes();
  const maxValue = nodeCount + 16 + dataBytes.length;
  const recordSize = maxValue < 2 ** 24 ? 24 : 32;
  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  const encode = (v: number): number => (v >= 0 ? v : v === EMPTY ? nodeCount : nodeCount + 16 + (-2 - v));
  for (let n = 0; n < nodeCount; n++) {
    const l = encode(left[n] as number);
    const r = encode(right[n] as number);
    if (recordSize === 24) {
      tree.writeUIntBE(l, n * 6, 3);
      tree.writeUIntBE(r, n * 6 + 3, 3);
    } else {
      tree.writeUInt32BE(l, n * 8);
      tree.writeUInt32BE(r, n * 8 + 4);
    }
  }

  const meta = new DataSection();
  meta.add({
    binary_format_major_version: u16(2),
    binary_format_minor_version: u16(0),
    build_epoch: u64(BigInt(Math.floor(Date.now() / 1000))),
    database_type: opts.databaseType,
    description: { en: opts.description ?? opts.databaseType },
    ip_version: u16(opts.ipVersion),
    languages: [],
    node_count: u32(nodeCount),
    record_size: u16(recordSize),
  });
  return Buffer.concat([tree, Buffer.alloc(16), dataBytes, METADATA_MARKER, meta.bytes()]);
}

function lowerBound(ranges: readonly MmdbRange[], lo: number, hi: number, pred: (r: MmdbRange) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(ranges[mid] as MmdbRange)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Metadata needs explicit integer widths; records use uint32 for integers and double otherwise.
type Typed = { t: 'u16' | 'u32'; v: number } | { t: 'u64'; v: bigint };
type Value = string | number | Typed | Value[] | { [k: string]: Value };
const u16 = (v: number): Typed => ({ t: 'u16', v });
const u32 = (v: number): Typed => ({ t: 'u32', v });
const u64 = (v: bigint): Typed => ({ t: 'u64', v });

class DataSection {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly seen = new Map<string, number>();

  /** Appends a value (once per distinct value) and returns its offset in the section. */
  add(value: Value): number {
    const key = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const known = this.seen.get(key);
    if (known !== undefined) return known;
    const offset = this.size;
    const bytes = encodeValue(value);
    this.chunks.push(bytes);
    this.size += bytes.length;
    this.seen.set(key, offset);
    return offset;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function encodeValue(value: Value): Buffer {
  if (typeof value === 'string') {
    const s = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, s.length), s]);
  }
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) return uint(6, BigInt(value));
    const d = Buffer.alloc(8);
    d.writeDoubleBE(value);
    return Buffer.concat([control(3, 8), d]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encodeValue)]);
  if ('t' in value && (value.t === 'u16' || value.t === 'u32' || value.t === 'u64')) {
    const typed = value as Typed;
    return uint(typed.t === 'u16' ? 5 : typed.t === 'u32' ? 6 : 9, BigInt(typed.v));
  }
  const entries = Object.entries(value as Record<string, Value>);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)])]);
}

function uint(type: number, v: bigint): Buffer {
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

/** The control byte(s): 3 type bits (types above 7 are "extended": 0 then a byte of type - 7) and a size. */
function control(type: number, size: number): Buffer {
  const head: number[] = [];
  let sizeBits: number;
  const extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) { sizeBits = 29; extra.push(size - 29); }
  else if (size < 65_821) { sizeBits = 30; const s = size - 285; extra.push(s >> 8, s & 0xff); }
  else { sizeBits = 31; const s = size - 65_821; extra.push((s >> 16) & 0xff, (s >> 8) & 0xff, s & 0xff); }
  if (type <= 7) head.push((type << 5) | sizeBits);
  else head.push(sizeBits, type - 7);
  return Buffer.from([...head, ...extra]);
}
