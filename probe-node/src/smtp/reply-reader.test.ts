import { describe, expect, it } from 'vitest';
import { ReplyProtocolError, ReplyReader, sanitize } from './reply-reader.ts';

const caps = { maxLineBytes: 2048, maxLines: 100, maxBufferedBytes: 64 * 1024 };
const feed = (reader: ReplyReader, ...parts: string[]): void => parts.forEach((p) => reader.push(Buffer.from(p, 'latin1')));

describe('ReplyReader', () => {
  it('assembles multi-line replies split anywhere across chunks', () => {
    const r = new ReplyReader(caps);
    feed(r, '250-mx.test\r\n250-PIPE', 'LINING\r', '\n250 SMTPUTF8\r\n220 ');
    expect(r.shift()).toEqual({ code: 250, lines: ['250-mx.test', '250-PIPELINING', '250 SMTPUTF8'] });
    expect(r.shift()).toBeUndefined();
    expect(r.midReply).toBe(true);
    feed(r, 'ready\r\n');
    expect(r.shift()).toEqual({ code: 220, lines: ['220 ready'] });
    expect(r.midReply).toBe(false);
  });

  it('queues pipelined replies in order and accepts bare LF and a bare code', () => {
    const r = new ReplyReader(caps);
    feed(r, '250 2.1.0 Ok\n550 5.1.1 no\r\n250\r\n');
    expect([r.shift()?.code, r.shift()?.code, r.shift()?.code]).toEqual([250, 550, 250]);
  });

  it.each([
    ['garbage', '\x00\xff\x13binary\r\n', /malformed/],
    ['a code outside 2xx-5xx', '199 hello\r\n', /malformed/],
    ['a code change inside a reply', '250-a\r\n550 b\r\n', /code changed/],
    ['too many lines', '220-x\r\n'.repeat(101), /100 lines/],
    ['a line over the cap', `220 ${'x'.repeat(3000)}`, /longer than 2048 bytes/],
  ])('refuses %s', (_name, input, message) => {
    const r = new ReplyReader(caps);
    expect(() => feed(r, input)).toThrow(ReplyProtocolError);
    expect(() => new ReplyReader(caps).push(Buffer.from(input, 'latin1'))).toThrow(message);
  });

  it('caps the bytes held when replies are not consumed', () => {
    const r = new ReplyReader({ ...caps, maxBufferedBytes: 4096 });
    expect(() => feed(r, `250 ${'y'.repeat(1000)}\r\n`.repeat(5))).toThrow(/4096 bytes/);
  });

  it('ignores everything after the STARTTLS reply until cleared', () => {
    const r = new ReplyReader(caps);
    r.haltAfterNextReply();
    feed(r, '220 2.0.0 Ready\r\n\x15\x03\x03 not tls\r\n250 injected\r\n');
    expect(r.shift()).toEqual({ code: 220, lines: ['220 2.0.0 Ready'] });
    expect(r.shift()).toBeUndefined();
    r.clear();
    feed(r, '250 fine\r\n');
    expect(r.shift()?.lines).toEqual(['250 fine']);
  });

  it('replaces control characters in reply text', () => {
    expect(sanitize('a\u0000b\u001bc\td')).toBe('a\uFFFDb\uFFFDc\td');
  });
});
