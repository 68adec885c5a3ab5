import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawSmtpClient } from '../testing/smtp-client.ts';
import { startSmtpHosts, type SmtpHostHandle } from './host.ts';

// clientLatencyMs: a slow link between one client address and the world (the cluster harness's
// stand-in for netem). Judged by order, not by the clock: the slowed client connects first and
// still gets its greeting last.
describe('per-client latency', () => {
  let hosts: SmtpHostHandle[];
  let port: number;
  beforeAll(async () => {
    ({ port, hosts } = await startSmtpHosts([{ name: 'mx.slowlink.test', ip: '127.0.4.1', behaviour: { catchAll: true } }], { clientLatencyMs: { '127.0.4.21': 400 } }));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
  });

  it('delays every reply to the slowed address and no other', async () => {
    const order: string[] = [];
    const slow = await RawSmtpClient.connect({ host: '127.0.4.1', port, localAddress: '127.0.4.21' });
    const fast = await RawSmtpClient.connect({ host: '127.0.4.1', port, localAddress: '127.0.4.22' });
    await Promise.all([slow.reply().then(() => order.push('slow')), fast.reply().then(() => order.push('fast'))]);
    expect(order).toEqual(['fast', 'slow']);
    slow.destroy();
    fast.destroy();
  });
});
