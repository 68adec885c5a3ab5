import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { REQUEST_ID_HEADER, currentRequestId, requestIdHeaders, requestIdOf, saneRequestId, withRequestId } from './request-id.ts';

describe('request ids', () => {
  it('keeps a plain caller id and refuses one that could forge headers or log lines', () => {
    expect(saneRequestId('abc-123_X.y:z')).toBe('abc-123_X.y:z');
    for (const bad of ['a b', 'a\r\nX-Evil: 1', 'x'.repeat(129), '', 'a,b', undefined, 42]) expect(saneRequestId(bad)).toBeUndefined();
  });

  it('runs work under an id that async continuations keep, and nothing outside it', async () => {
    expect(currentRequestId()).toBeUndefined();
    const seen = await withRequestId('req-1', async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentRequestId();
    });
    expect(seen).toBe('req-1');
    expect(currentRequestId()).toBeUndefined();
    expect(withRequestId(undefined, () => currentRequestId())).toBeUndefined();
  });

  it('carries the distinct ids of a batch on one NATS header, and reads back only a sane list', () => {
    const h = requestIdHeaders(['a', undefined, 'b', 'a']);
    expect(h?.get(REQUEST_ID_HEADER)).toBe('a,b');
    expect(requestIdOf(h)).toBe('a,b');
    expect(requestIdHeaders([undefined])).toBeUndefined();
    const forged = requestIdHeaders(['ok']);
    forged!.set(REQUEST_ID_HEADER, 'has space');
    expect(requestIdOf(forged)).toBeUndefined();
  });

  it('puts the id on every log line written during the request', () => {
    const lines: string[] = [];
    const captured = createLogger('svc', 'info', { write: (line: string) => void lines.push(line) });
    withRequestId('req-9', () => captured.info('inside'));
    captured.info('outside');
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'inside', request_id: 'req-9' });
    expect(JSON.parse(lines[1]!).request_id).toBeUndefined();
  });
});
