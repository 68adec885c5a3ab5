import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanUtf8, Utf8OffsetTracker } from './utf8-offset.ts';

const b = (...x: number[]) => Uint8Array.from(x);

describe('scanUtf8', () => {
  it.each([
    ['a lone 0xFF', b(0x61, 0x62, 0xff, 0x63), 2],
    ['a stray continuation byte', b(0x61, 0x80), 1],
    ['an overlong C0 form', b(0x41, 0xc0, 0xaf), 1],
    ['an overlong 3-byte form', b(0xe0, 0x80, 0xaf), 0],
    ['a surrogate', b(0x41, 0x42, 0xed, 0xa0, 0x80), 2],
    ['above U+10FFFF', b(0xf4, 0x90, 0x80, 0x80), 0],
    ['a sequence broken by ASCII', b(0xc3, 0xa9, 0xe2, 0x82, 0x41), 2],
    ['Latin-1 é after ASCII', Buffer.from('name\ncaf\xe9\n', 'latin1'), 8],
  ])('finds %s', (_what, bytes, at) => {
    expect(scanUtf8(bytes).invalidAt).toBe(at);
  });

  it('treats a sequence cut by the end of the buffer as unfinished, not invalid', () => {
    expect(scanUtf8(b(0x61, 0xf0, 0x9f, 0x98))).toEqual({ invalidAt: -1, incompleteTail: 3 });
  });

  it('agrees with TextDecoder on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const scan = scanUtf8(bytes);
        let decoderSaysValid = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          decoderSaysValid = false;
        }
        expect(scan.invalidAt === -1 && scan.incompleteTail === 0).toBe(decoderSaysValid);
        // Everything before the reported byte is valid UTF-8.
        if (scan.invalidAt >= 0) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, scan.invalidAt))).not.toThrow();
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('Utf8OffsetTracker', () => {
  it('gives the absolute offset whatever the chunk boundaries', () => {
    const bytes = Buffer.concat([Buffer.from('email\n'), Buffer.from('é€😀\n', 'utf8'), b(0xe2, 0x82), Buffer.from('x')]);
    const expected = scanUtf8(bytes).invalidAt;
    expect(expected).toBe(16);
    for (let size = 1; size <= bytes.length; size++) {
      const t = new Utf8OffsetTracker();
      let found = -1;
      for (let i = 0; i < bytes.length && found < 0; i += size) found = t.push(bytes.subarray(i, i + size));
      expect(found, `chunks of ${size}`).toBe(expected);
    }
  });

  it('names the start of a sequence the stream never finishes', () => {
    const t = new Utf8OffsetTracker();
    expect(t.push(Buffer.from('abc'))).toBe(-1);
    expect(t.push(b(0xf0, 0x9f))).toBe(-1);
    expect(t.end()).toBe(3);
  });
});
