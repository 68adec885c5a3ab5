import type { JetStreamPublisher, PublishAck } from '@dv/runtime';

// A job's item messages are published after the job is paid for, so a lost ack or a NATS blip
// must not fail the request at the first try: each message is published again with backoff. The
// message id (the item id) makes that safe: JetStream drops a second copy it already holds.

export interface PublishRetryOptions {
  /** Tries per message, the first included. */
  attempts: number;
  /** Wait before the second try; doubled before each further one. */
  baseDelayMs: number;
  /** No new try starts this long after the first (an ack timeout alone takes 5 s). */
  windowMs: number;
}

export async function publishWithRetry(publisher: Pick<JetStreamPublisher, 'publish'>, subject: string, data: string, msgID: string, o: PublishRetryOptions): Promise<PublishAck> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await publisher.publish(subject, data, { msgID });
    } catch (err) {
      const delay = o.baseDelayMs * 2 ** (attempt - 1);
      if (attempt >= o.attempts || performance.now() - started + delay > o.windowMs) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
