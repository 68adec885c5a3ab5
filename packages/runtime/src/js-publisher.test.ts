// The inbox-matched JetStream publisher against a real nats-server: acks, duplicates, refusals,
// missing streams, lost acks and closed connections.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { stackEnv } from '@dv/test-kit';
import { JetStreamPublishError, JetStreamPublisher } from './js-publisher.ts';

let nc: NatsConnection;
let jsm: JetStreamManager;
const tag = randomBytes(3).toString('hex');
const stream = `PUBTEST_${tag}`;
const subject = (s: string) => `pubtest.${tag}.${s}`;

beforeAll(async () => {
  nc = await connect({ servers: stackEnv().NATS_URL as string, noAsyncTraces: true });
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject('open')], duplicate_window: 60_000_000_000 });
  await jsm.streams.add({ name: `${stream}_FULL`, subjects: [subject('full')], max_msgs: 1, discard: DiscardPolicy.New });
});

afterAll(async () => {
  await jsm.streams.delete(stream).catch(() => undefined);
  await jsm.streams.delete(`${stream}_FULL`).catch(() => undefined);
  await nc.close();
});

describe('JetStreamPublisher', () => {
  it('resolves each publish with its own ack, in the stream, and reports duplicates by message id', async () => {
    const p = new JetStreamPublisher(nc);
    const acks = await Promise.all(Array.from({ length: 5_000 }, (_, i) => p.publish(subject('open'), `m${i}`, { msgID: `id-${i}` })));
    expect(acks.every((a) => a.stream === stream && !a.duplicate)).toBe(true);
    expect(new Set(acks.map((a) => a.seq)).size).toBe(5_000);
    const again = await p.publish(subject('open'), 'm0 again', { msgID: 'id-0' });
    expect(again).toEqual({ stream, seq: acks[0]!.seq, duplicate: true });
    expect((await jsm.streams.info(stream)).state.messages).toBe(5_000);
    expect(p.pending).toBe(0);
    p.close();
  });

  it('rejects when the stream refuses the message, and when no stream takes the subject', async () => {
    const p = new JetStreamPublisher(nc);
    await p.publish(subject('full'), 'first');
    await expect(p.publish(subject('full'), 'second')).rejects.toThrow(/publish refused: maximum messages exceeded/);
    await expect(p.publish(subject('full'), 'third')).rejects.toBeInstanceOf(JetStreamPublishError);
    await expect(p.publish(`pubtest.${tag}.nowhere`, 'x')).rejects.toMatchObject({ name: 'NoRespondersError' });
    p.close();
  });

  it('gives up on an ack that never comes, and keeps working afterwards', async () => {
    // A core subscriber that swallows the message: a responder exists, but no ack is ever sent.
    const silent = nc.subscribe(`pubtest.${tag}.silent`);
    const p = new JetStreamPublisher(nc, { timeoutMs: 200 });
    const t0 = performance.now();
    await expect(p.publish(`pubtest.${tag}.silent`, 'x')).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(p.pending).toBe(0);
    expect((await p.publish(subject('open'), 'after', { msgID: `after-${tag}` })).duplicate).toBe(false);
    silent.unsubscribe();
    p.close();
  });

  it('fails what is in flight when closed, and refuses publishes on a closed connection', async () => {
    const silent = nc.subscribe(`pubtest.${tag}.silent2`);
    const p = new JetStreamPublisher(nc, { timeoutMs: 60_000 });
    const inFlight = p.publish(`pubtest.${tag}.silent2`, 'x');
    p.close();
    await expect(inFlight).rejects.toMatchObject({ name: 'ClosedConnectionError', message: 'publisher closed' });
    silent.unsubscribe();

    const other = await connect({ servers: stackEnv().NATS_URL as string });
    const q = new JetStreamPublisher(other);
    await other.close();
    await expect(q.publish(subject('open'), 'x')).rejects.toThrow(/connection closed/);
  });
});
