// TEST-ONLY: a local SMTP relay (smtp-server) that captures every message it is given.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  /** The raw message with quoted-printable soft breaks and =XX escapes undone (good enough to search). */
  decoded: string;
}

export interface CaptureRelay {
  url: string;
  inbox: CapturedMail[];
  /** When set, the relay refuses the next n messages with a 451 (a relay having trouble). */
  failNext: number;
  close(): Promise<void>;
}

export function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export async function startCaptureRelay(): Promise<CaptureRelay> {
  const relay: CaptureRelay = {
    url: '',
    inbox: [],
    failNext: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (relay.failNext > 0) {
          relay.failNext--;
          return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        relay.inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          decoded: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  relay.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return relay;
}
