// Held items are acked through the message's reply subject (@dv/runtime Lease) instead of keeping
// the JsMsg: the same protocol bytes JsMsg sends, only one final ack, progress acks until then.
import { describe, expect, it } from 'vitest';
import { Lease } from '@dv/runtime';
import { ackHeld, releaseHeld, type HeldItem } from './held-item.ts';

function recorder() {
  const sent: Array<[string, string]> = [];
  return { sent, nc: { publish: (subject: string, data?: string | Uint8Array) => void sent.push([subject, new TextDecoder().decode(data as Uint8Array)]) } };
}

describe('Lease', () => {
  it('sends +WPI until a final +ACK, then nothing', () => {
    const { sent, nc } = recorder();
    const a = new Lease(nc, '$JS.ACK.VERIFY.scheduler-list.1.2.3.4.5');
    a.working();
    a.working();
    a.ack();
    a.ack();
    a.nak();
    a.working();
    expect(sent).toEqual([
      ['$JS.ACK.VERIFY.scheduler-list.1.2.3.4.5', '+WPI'],
      ['$JS.ACK.VERIFY.scheduler-list.1.2.3.4.5', '+WPI'],
      ['$JS.ACK.VERIFY.scheduler-list.1.2.3.4.5', '+ACK'],
    ]);
  });

  it('naks with a delay in nanoseconds, as JsMsg does', () => {
    const { sent, nc } = recorder();
    new Lease(nc, 'r1').nak(1_000);
    new Lease(nc, 'r2').nak();
    new Lease(nc, 'r3').nak(0);
    expect(sent).toEqual([
      ['r1', '-NAK {"delay":1000000000}'],
      ['r2', '-NAK'],
      ['r3', '-NAK'],
    ]);
  });

  it('terms with a reason; abandon sends nothing and settles', () => {
    const { sent, nc } = recorder();
    const settled: string[] = [];
    new Lease(nc, 't1').term('malformed');
    new Lease(nc, 't2').term();
    const a = new Lease(nc, 'a1', (l) => settled.push(l.reply));
    a.abandon();
    a.ack();
    expect(a.settled).toBe(true);
    expect(settled).toEqual(['a1']);
    expect(sent).toEqual([
      ['t1', '+TERM malformed'],
      ['t2', '+TERM'],
    ]);
  });

  it('a held item leaves its in-flight set once, acked or released, and is not touched after', () => {
    const { sent, nc } = recorder();
    const owner = new Set<HeldItem>();
    const h: HeldItem = { msg: new Lease(nc, 'r'), item: { _id: 'j:0', job_id: 'j', account_id: 'a', email: 'a@b.c', ref: null, attempts: 0, source_ip: null }, mode: 'live', priority: 'list', receivedAtMs: 0, redispatches: 0, settled: false, owner };
    owner.add(h);
    h.msg.working();
    ackHeld(h);
    releaseHeld(h, 1_000);
    h.msg.working();
    expect(owner.size).toBe(0);
    expect(sent.map(([, p]) => p)).toEqual(['+WPI', '+ACK']);
  });
});
