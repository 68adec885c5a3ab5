// Where a byte stream stops being UTF-8. TextDecoder (fatal) only says *that* a chunk is bad; the
// upload error names the exact byte so a user can find it in an editor. The rules are the WHATWG
// decoder's (what TextDecoder enforces): no overlong forms, no surrogates, nothing above U+10FFFF.

/** Allowed range of the second byte after each lead byte (the rest are always 0x80-0xBF). */
function secondByteRange(lead: number): readonly [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf]; // overlong 3-byte forms below U+0800
  if (lead === 0xed) return [0x80, 0x9f]; // UTF-16 surrogates D800-DFFF
  if (lead === 0xf0) return [0x90, 0xbf]; // overlong 4-byte forms below U+10000
  if (lead === 0xf4) return [0x80, 0x8f]; // above U+10FFFF
  return [0x80, 0xbf];
}

/** Bytes in the sequence a lead byte starts, 0 when it cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0; // continuation bytes, C0/C1 (always overlong), F5-FF
}

export interface Utf8Scan {
  /** Offset of the first byte of the first invalid sequence, or -1. */
  invalidAt: number;
  /** Bytes at the end that start a sequence the buffer does not finish (0 when it ends cleanly). */
  incompleteTail: number;
}

/** Scans `bytes`; a sequence cut off by the end of the buffer is not an error (the next chunk may finish it). */
export function scanUtf8(bytes: Uint8Array): Utf8Scan {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const len = sequenceLength(lead);
    if (len === 0) return { invalidAt: i, incompleteTail: 0 };
    for (let k = 1; k < len; k++) {
      if (i + k >= bytes.length) return { invalidAt: -1, incompleteTail: bytes.length - i };
      const [lo, hi] = k === 1 ? secondByteRange(lead) : [0x80, 0xbf];
      const b = bytes[i + k]!;
      if (b < lo || b > hi) return { invalidAt: i, incompleteTail: 0 };
    }
    i += len;
  }
  return { invalidAt: -1, incompleteTail: 0 };
}

/**
 * Tracks a stream chunk by chunk; `push` returns the absolute offset of the first invalid byte, or
 * -1. Only the unfinished sequence at a chunk's end (at most 3 bytes) is carried to the next one.
 */
export class Utf8OffsetTracker {
  private carry: Uint8Array = new Uint8Array(0);
  /** Absolute offset of carry[0]. */
  private base = 0;

  push(chunk: Uint8Array): number {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const scan = scanUtf8(bytes);
    if (scan.invalidAt >= 0) return this.base + scan.invalidAt;
    this.base += bytes.length - scan.incompleteTail;
    this.carry = bytes.subarray(bytes.length - scan.incompleteTail);
    return -1;
  }

  /** At the end of the stream: the offset of an unfinished last sequence, or -1. */
  end(): number {
    return this.carry.length > 0 ? this.base : -1;
  }
}
