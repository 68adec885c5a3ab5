// The launcher's webhook receiver: an HTTPS server on a free loopback port, its certificate signed
// by the local CA (./local-ca.ts) that the services trust, so the notify worker delivers to it
// exactly as to a customer's endpoint (TLS verified, SSRF guard with the launcher's loopback switch).
// POST /hooks/<account_id>: the X-Verify-Signature is checked against that account's webhook
// secret, the delivery is kept under <localDir>/inbox/webhooks with the outcome, and the answer is
// what a careful receiver gives: 204 when the signature is valid, 400 otherwise.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '@dv/notify';
import { entryName, writeEntry, type SignatureCheck, type StoredDelivery } from './inbox/store.ts';

/** Webhook bodies are a few KB; anything much larger is not ours. */
export const WEBHOOK_RECEIVER_MAX_BYTES = 1024 * 1024;
export const WEBHOOK_PATH_PREFIX = '/hooks/';

export interface WebhookReceiver {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The webhook_url for an account's jobs. */
  urlFor(accountId: string): string;
  stop(): Promise<void>;
}

export interface WebhookReceiverOptions {
  inboxDir: string;
  tls: { cert: string; key: string };
  /** The account's webhook secret, or null for an unknown account. */
  secretFor(accountId: string): Promise<string | null>;
  host?: string;
  port?: number;
  onDelivery?: (d: StoredDelivery) => void;
}

/** The account id a delivery path names (percent-decoded; a malformed escape stays as sent), or null. */
export function accountIdOf(path: string): string | null {
  if (!path.startsWith(WEBHOOK_PATH_PREFIX)) return null;
  const raw = path.slice(WEBHOOK_PATH_PREFIX.length).split(/[/?]/)[0] ?? '';
  try {
    return decodeURIComponent(raw) || null;
  } catch {
    return raw;
  }
}

/** The pure part: what a delivery is, given its path, header, raw body and the account's secret. */
export function judgeDelivery(path: string, header: string | null, body: Buffer, secret: string | null | undefined, now: Date): StoredDelivery {
  const accountId = accountIdOf(path);
  let signature: SignatureCheck;
  if (!header) signature = 'missing';
  else if (!secret) signature = 'unknown_account';
  else signature = verifyWebhookSignature(header, body, secret) ? 'valid' : 'invalid';
  let event: { id?: unknown; type?: unknown; data?: { job_id?: unknown } } = {};
  try {
    event = JSON.parse(body.toString('utf8')) as typeof event;
  } catch {
    // kept as text; the signature outcome says what matters
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    kind: 'webhook',
    received_at: now.toISOString(),
    path,
    account_id: accountId,
    signature_header: header,
    signature,
    answered: signature === 'valid' ? 204 : 400,
    event_id: str(event.id),
    event_type: str(event.type),
    job_id: str(event.data?.job_id),
    body: body.toString('utf8'),
  };
}

/**
 * The raw body, or null when it is larger than any webhook: the rest is then read and dropped so
 * the client gets the 413 instead of a reset (up to 8 times the limit; beyond that, the socket is cut).
 */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= WEBHOOK_RECEIVER_MAX_BYTES) chunks.push(c);
      else if (size > 8 * WEBHOOK_RECEIVER_MAX_BYTES) req.destroy();
    });
    req.on('end', () => resolve(size > WEBHOOK_RECEIVER_MAX_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (req.method !== 'POST' || !path.startsWith(WEBHOOK_PATH_PREFIX)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`POST ${WEBHOOK_PATH_PREFIX}<account_id> with a signed job.completed event\n`);
      return;
    }
    const body = await readBody(req);
    if (body === null) {
      res.writeHead(413).end();
      return;
    }
    const header = req.headers[SIGNATURE_HEADER.toLowerCase()];
    const headerValue = Array.isArray(header) ? header.join(',') : (header ?? null);
    const accountId = accountIdOf(path);
    const secret = accountId ? await opts.secretFor(accountId) : null;
    const now = new Date();
    const delivery = judgeDelivery(path, headerValue, body, secret, now);
    writeEntry(opts.inboxDir, delivery, entryName(now));
    opts.onDelivery?.(delivery);
    res.writeHead(delivery.answered, delivery.answered === 204 ? {} : { 'content-type': 'text/plain' }).end(delivery.answered === 204 ? undefined : `signature ${delivery.signature}\n`);
  };
  const server: Server = createServer({ cert: opts.tls.cert, key: opts.tls.key }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`);
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const url = `https://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    urlFor: (accountId) => `${url}${WEBHOOK_PATH_PREFIX}${encodeURIComponent(accountId)}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
