// The work loop against a real nats-server (JetStream): a handler that throws is retried after its
// backoff, a slow handler is kept alive past ack_wait, a stop gives the messages in hand back at
// once to another consumer, and low-priority work never takes the reserved places.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { stackEnv, until } from '@dv/test-kit';
import type { Lease } from './lease.ts';
import { createLogger } from './logger.ts';
import { WorkLoop, type WorkLoopOptions } from './work-loop.ts';

type Lane = 'high' | 'low';
const ACK_WAIT_MS = 1_000;
const tag = randomBytes(3).toString('hex');
const stream = `WORKLOOP_${tag}`;
const subject = (lane: Lane) => `workloop.${tag}.${lane}`;
const durable = (lane: Lane) => `wl_${tag}_${lane}`;
const log = createLogger('work-loop-test', 'silent');
const never = () => new Promise<never>(() => undefined);

let nc: NatsConnection;
let jsm: JetStreamManager;
const loops: WorkLoop<Lane>[] = [];

beforeAll(async () => {
  nc = await connect({ servers: stackEnv().NATS_URL as string, noAsyncTraces: true });
  jsm = await jetstreamManager(nc);
});

afterEach(async () => {
  for (const l of loops.splice(0)) await l.abandon();
  await jsm.streams.delete(stream).catch(() => undefined);
});

afterAll(async () => {
  await nc.close();
});

/** A fresh stream (work queue) with one durable per lane: short ack_wait, unlimited deliveries. */
async function freshStream(): Promise<void> {
  await jsm.streams.add({ name: stream, subjects: [`workloop.${tag}.>`], retention: RetentionPolicy.Workqueue });
  for (const lane of ['high', 'low'] as const) {
    await jsm.consumers.add(stream, { durable_name: durable(lane), filter_subject: subject(lane), ack_policy: AckPolicy.Explicit, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 1_000 });
  }
}

const publish = async (lane: Lane, n = 1) => {
  const js = jetstream(nc);
  for (let i = 0; i < n; i++) await js.publish(subject(lane), `${lane}-${i}`);
};
const waiting = async () => (await jsm.streams.info(stream)).state.messages;

async function startLoop(handle: WorkLoopOptions<Lane>['handle'], opts: Partial<WorkLoopOptions<Lane>> = {}): Promise<WorkLoop<Lane>> {
  const loop: WorkLoop<Lane> = new WorkLoop<Lane>({
    nc,
    log,
    stream,
    lanes: [{ name: 'high', durable: durable('high') }, { name: 'low', durable: durable('low') }],
    capacity: 4,
    inHand: () => loop.held,
    handle,
    idleMs: 20,
    ...opts,
  });
  await loop.start();
  loops.push(loop);
  return loop;
}

describe('WorkLoop', () => {
  it('a handler that throws is nak\'ed with its backoff and redelivered; the lease acks once it succeeds', async () => {
    await freshStream();
    const seen: Array<{ at: number; deliveries: number }> = [];
    const loop = await startLoop(async (msg, lease) => {
      seen.push({ at: Date.now(), deliveries: msg.info.deliveryCount });
      if (msg.info.deliveryCount < 3) throw new Error('boom');
      lease.ack();
    }, { retryDelayMs: (n) => 150 * n });
    await publish('low');
    await until(async () => seen.length === 3 && (await waiting()) === 0, 5_000, 'acked on the third delivery');
    expect(seen.map((s) => s.deliveries)).toEqual([1, 2, 3]);
    // 150 ms after the first failure, 300 ms after the second; both well before ack_wait.
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(140);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(290);
    expect(seen[2]!.at - seen[1]!.at).toBeLessThan(ACK_WAIT_MS);
    expect(loop.held).toBe(0);
  });

  it('keep-alive: a handler slower than ack_wait is not redelivered meanwhile', async () => {
    await freshStream();
    const deliveries: number[] = [];
    const loop = await startLoop(async (msg, lease) => {
      deliveries.push(msg.info.deliveryCount);
      await new Promise((r) => setTimeout(r, ACK_WAIT_MS * 3));
      lease.ack();
    });
    await publish('high');
    await until(async () => deliveries.length === 1 && loop.handling === 0 && (await waiting()) === 0, ACK_WAIT_MS * 6, 'slow handler done and acked');
    expect(deliveries).toEqual([1]);
  });

  it('stop gives the messages in hand back: another consumer takes them at once, not after ack_wait', async () => {
    await freshStream();
    let begun = 0;
    const a = await startLoop(async () => {
      begun++;
      return never();
    });
    await publish('high', 2);
    await publish('low', 1);
    await until(() => begun === 3, 5_000, 'all three in hand');
    const taken: JsMsg[] = [];
    const b = await startLoop((msg: JsMsg, lease: Lease) => {
      taken.push(msg);
      lease.ack();
    });
    const stoppedAt = Date.now();
    await a.stop();
    expect(await a.idle(50)).toBe(false);
    a.giveBack();
    expect(a.held).toBe(0);
    await until(async () => taken.length === 3 && (await waiting()) === 0, 5_000, 'redelivered to the other loop');
    expect(Date.now() - stoppedAt).toBeLessThan(ACK_WAIT_MS);
    expect(taken.every((m) => m.info.deliveryCount === 2)).toBe(true);
    await b.stop();
  });

  it('priority reserve: low-priority work fills only capacity - reserve; the reserved places take high-priority work at once', async () => {
    await freshStream();
    const inHand: Record<Lane, number> = { high: 0, low: 0 };
    const loop = await startLoop((_msg, _lease, lane) => {
      inHand[lane]++;
      return never();
    }, { capacity: 4, reserve: 2 });
    await publish('low', 6);
    await until(() => inHand.low === 2, 5_000, 'low lane full');
    // Pulls keep going out; none brings more low-priority work past its limit.
    await new Promise((r) => setTimeout(r, 300));
    expect(inHand.low).toBe(2);
    await publish('high', 3);
    // At least the reserved places; a high-priority pull sent before the low lane filled may bring
    // one more (each lane's open pull counts what was in hand when it went out).
    await until(() => inHand.high >= 2, 2_000, 'the reserved places taken by high-priority work');
    await new Promise((r) => setTimeout(r, 300));
    expect(inHand.low).toBe(2);
    expect(loop.held).toBe(2 + inHand.high);
    expect(await waiting()).toBe(9);
  });

  it('nothing is pulled once stop returns: no open pull request is left behind', async () => {
    await freshStream();
    const handled: string[] = [];
    const loop = await startLoop((msg, lease) => {
      handled.push(msg.string());
      lease.ack();
    });
    await loop.stop();
    await publish('high', 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(handled).toEqual([]);
    expect(await waiting()).toBe(2);
    const info = await jsm.consumers.info(stream, durable('high'));
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_waiting).toBe(0);
  });
});
