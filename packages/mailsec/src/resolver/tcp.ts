// One query over TCP (RFC 7766), used when a UDP reply came back truncated. A connection per
// query keeps it simple: truncation is rare, and the reply is bounded by its 2-byte length prefix.
import net from 'node:net';
import { randomInt } from 'node:crypto';
import { decodeMessage, type DecodeLimits } from './wire.ts';
import { answersQuestion, type ExchangeOutcome, type ExchangeRequest } from './exchange.ts';

export interface TcpOptions extends DecodeLimits {
  maxResponseBytes: number;
}

export function tcpExchange(request: ExchangeRequest, options: TcpOptions, track: Set<net.Socket>): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const id = randomInt(0x10000);
    let query: Buffer;
    try {
      query = request.encode(id);
    } catch (err) {
      resolve({ kind: 'error', error: `cannot encode query: ${(err as Error).message}` });
      return;
    }
    const socket = net.connect({ host: request.server.host, port: request.server.port });
    track.add(socket);
    let chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (outcome: ExchangeOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      track.delete(socket);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), request.timeoutMs);
    socket.on('connect', () => {
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(query.length);
      socket.write(Buffer.concat([prefix, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 2) return;
      const all = Buffer.concat(chunks, received);
      chunks = [all];
      const length = all.readUInt16BE(0);
      if (length > options.maxResponseBytes) return finish({ kind: 'error', error: `TCP reply of ${length} bytes exceeds the limit` });
      if (received < 2 + length) return;
      let message;
      try {
        message = decodeMessage(all.subarray(2, 2 + length), options);
      } catch (err) {
        return finish({ kind: 'error', error: `malformed TCP reply: ${(err as Error).message}` });
      }
      if (message.id !== id || !answersQuestion(message, request.name, request.type)) {
        return finish({ kind: 'error', error: 'TCP reply does not match the query' });
      }
      finish({ kind: 'reply', message });
    });
    socket.on('error', (err) => finish({ kind: 'error', error: `TCP: ${err.message}` }));
    socket.on('close', () => finish({ kind: 'error', error: 'TCP connection closed before a full reply' }));
  });
}
