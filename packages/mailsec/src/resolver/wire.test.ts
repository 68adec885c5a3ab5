import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeMessage, encodeQuery } from './wire.ts';

describe('wire', () => {
  it('round-trips a query with its EDNS OPT record', () => {
    const buf = encodeQuery({ id: 4242, name: 'example.test', type: 'TXT', edns: { udpPayloadSize: 1232, dnssecOk: true } });
    const msg = decodeMessage(buf, { maxRecords: 10 });
    expect(msg).toMatchObject({ id: 4242, qr: false, question: { name: 'example.test', type: 16, class: 1 } });
    // OPT: class carries the payload size, TTL bit 15 the DO flag.
    const optAt = buf.length - 11;
    expect(buf.readUInt16BE(optAt + 1)).toBe(41);
    expect(buf.readUInt16BE(optAt + 3)).toBe(1232);
    expect(buf.readUInt32BE(optAt + 5) & 0x8000).toBe(0x8000);
  });

  it('encodes names label by label, like a split on dots, and rejects bad labels', () => {
    // The reference: the straightforward encoding the one-pass encoder replaced.
    const reference = (name: string): Buffer =>
      Buffer.concat([...(name === '' ? [] : name.split('.')).map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
    const label = fc.stringMatching(/^[a-z0-9_-]{1,63}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 0, maxLength: 6 }), (labels) => {
        const name = labels.join('.');
        const wire = reference(name);
        fc.pre(wire.length <= 255);
        const buf = encodeQuery({ id: 7, name, type: 'A', edns: null });
        expect(buf.subarray(12, 12 + wire.length)).toEqual(wire);
        expect(buf.length).toBe(12 + wire.length + 4);
        expect(decodeMessage(buf, { maxRecords: 1 }).question.name).toBe(name);
      }),
    );
    for (const bad of ['a..b', '.a', 'a.', `${'x'.repeat(64)}.test`, Array.from({ length: 5 }, () => 'y'.repeat(60)).join('.')]) {
      expect(() => encodeQuery({ id: 1, name: bad, type: 'A', edns: null })).toThrow();
    }
  });

  it('throws (never hangs or crashes the process) on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        try {
          decodeMessage(Buffer.from(bytes), { maxRecords: 100 });
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects mutated versions of a valid reply or decodes them consistently', () => {
    const base = encodeQuery({ id: 1, name: 'a.example.test', type: 'A', edns: null });
    fc.assert(
      fc.property(fc.nat(base.length - 1), fc.nat(255), (at, value) => {
        const copy = Buffer.from(base);
        copy[at] = value;
        try {
          const msg = decodeMessage(copy, { maxRecords: 100 });
          expect(typeof msg.question.name).toBe('string');
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
        }
      }),
    );
  });
});
