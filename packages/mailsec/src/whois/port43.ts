// A port-43 WHOIS exchange (RFC 3912): connect, send one line, read until the server closes,
// with a deadline and a size cap. The caller resolves host names through the engine's resolver
// first, so this module only ever connects to an IP address it was given.
import net from 'node:net';

export interface WhoisExchangeOptions {
  ip: string;
  port: number;
  query: string;
  timeoutMs: number;
  maxBytes: number;
}

export function whoisExchange(options: WhoisExchangeOptions): Promise<{ ok: true; text: string; truncated: boolean } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const socket = net.connect({ host: options.ip, port: options.port });
    const finish = (result: { ok: true; text: string; truncated: boolean } | { ok: false; error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(total > 0 ? { ok: true, text: text(), truncated: true } : { ok: false, error: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    const text = () => Buffer.concat(chunks).toString('utf8').replace(/\r\n/g, '\n');
    socket.on('connect', () => socket.write(`${options.query.replace(/[\r\n]/g, '')}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      const room = options.maxBytes - total;
      chunks.push(chunk.subarray(0, Math.max(0, room)));
      total += chunk.length;
      if (total >= options.maxBytes) finish({ ok: true, text: text(), truncated: true });
    });
    socket.on('end', () => finish({ ok: true, text: text(), truncated: false }));
    socket.on('close', () => finish({ ok: true, text: text(), truncated: false }));
    socket.on('error', (err) => finish(total > 0 ? { ok: true, text: text(), truncated: true } : { ok: false, error: err.message }));
  });
}
