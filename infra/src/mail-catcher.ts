// The launcher's mail catcher: an SMTP server on a free loopback port that accepts every message
// and keeps it under <localDir>/inbox/mail (raw .eml plus a parsed .json: subject, text, links).
// `npm start` and `npm run demo` pass it to every service as SMTP_RELAY_URL, so completion emails
// and free-key links work with no setting and can be read with `npm run admin -- inbox`.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { entryName, extractLinks, INBOX_DIRS, writeEntry, type StoredMail } from './inbox/store.ts';

/** Largest message kept; the platform's own mails are a few KB. */
export const MAIL_CATCHER_MAX_BYTES = 5 * 1024 * 1024;

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>, the value for SMTP_RELAY_URL. */
  url: string;
  stop(): Promise<void>;
}

const addressText = (a: AddressObject | AddressObject[] | undefined): string => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));

export async function startMailCatcher(opts: { inboxDir: string; host?: string; port?: number; onMail?: (mail: StoredMail) => void }): Promise<MailCatcher> {
  const dir = join(opts.inboxDir, INBOX_DIRS.mail);
  mkdirSync(dir, { recursive: true });
  const server = new SMTPServer({
    // Local only: no TLS to negotiate and no login to check (the services send without credentials).
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAIL_CATCHER_MAX_BYTES,
    logger: false,
    banner: 'dv local mail catcher (keeps every message; npm run admin -- inbox)',
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(Object.assign(new Error('message too large for the mail catcher'), { responseCode: 552 }));
        const raw = Buffer.concat(chunks);
        const now = new Date();
        const name = entryName(now);
        writeFileSync(join(dir, `${name}.eml`), raw);
        simpleParser(raw).then(
          (parsed) => {
            const html = typeof parsed.html === 'string' ? parsed.html : '';
            const mail: StoredMail = {
              kind: 'mail',
              received_at: now.toISOString(),
              mail_from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              rcpt_to: session.envelope.rcptTo.map((r) => r.address),
              from: addressText(parsed.from),
              to: addressText(parsed.to),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              // HTML links are entity-escaped (&amp;); the text part carries the same links plainly.
              links: extractLinks(parsed.text ?? '', html.replace(/&amp;/g, '&')),
              raw_file: `${name}.eml`,
            };
            writeEntry(opts.inboxDir, mail, name);
            opts.onMail?.(mail);
            callback();
          },
          (err: unknown) => callback(Object.assign(new Error(`unreadable message: ${(err as Error).message}`), { responseCode: 554 })),
        );
      });
    },
  });
  // smtp-server re-emits a client's socket error inside a transaction (a reset mid-DATA) on the
  // server; with no listener that event would end the launcher. The client is gone: nothing to do.
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${opts.host ?? '127.0.0.1'}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
