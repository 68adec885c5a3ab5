import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RawSmtpClient } from '../testing/smtp-client.ts';
import { FLOOD_BYTES, GARBAGE } from './hostile.ts';
import { startSmtpHosts } from './host.ts';
import type { SmtpHostHandle } from './host.ts';

let port: number;
let hosts: SmtpHostHandle[];
const clients: RawSmtpClient[] = [];

beforeAll(async () => {
  const started = await startSmtpHosts([
    { name: 'mx.garbage.test', ip: '127.0.7.10', behaviour: { hostile: 'garbage' } },
    { name: 'mx.flood.test', ip: '127.0.7.20', behaviour: { hostile: 'flood' } },
    { name: 'mx.silent.test', ip: '127.0.7.30', behaviour: { hostile: 'silent' } },
    { name: 'mx.halfreply.test', ip: '127.0.7.40', behaviour: { hostile: 'midReplyDisconnect' } },
    { name: 'mx.badtls.test', ip: '127.0.7.50', behaviour: { hostile: 'badTls' } },
  ]);
  port = started.port;
  hosts = started.hosts;
});

afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.destroy();
    await client.closed;
  }
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
});

async function connect(ip: string): Promise<RawSmtpClient> {
  const client = await RawSmtpClient.connect({ host: ip, port, timeoutMs: 2000 });
  clients.push(client);
  return client;
}

async function settle(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

describe('hostile hosts', () => {
  it('garbage: sends binary garbage instead of a greeting, and more garbage to any command', async () => {
    const client = await connect('127.0.7.10');
    await expect(client.reply(300)).rejects.toThrow(/no reply/);
    expect(client.received.subarray(0, GARBAGE.length).equals(GARBAGE)).toBe(true);
    client.send('EHLO p.test');
    await settle(100);
    expect(client.received.length).toBe(2 * GARBAGE.length);
    expect(hosts[0]?.stats.commands).toContain('EHLO p.test');
  });

  it('flood: sends megabytes of 220- continuation lines, never a final line, then closes', async () => {
    const client = await connect('127.0.7.20');
    await expect(client.reply(10_000)).rejects.toThrow(/closed before a complete reply/);
    expect(client.received.length).toBeGreaterThanOrEqual(FLOOD_BYTES);
    const text = client.received.toString('latin1');
    expect(text.startsWith('220-flood')).toBe(true);
    expect(/(^|\r\n)220 /.test(text)).toBe(false);
  });

  it('silent: accepts the connection and never says anything', async () => {
    const client = await connect('127.0.7.30');
    client.send('EHLO p.test');
    await expect(client.reply(300)).rejects.toThrow(/no reply/);
    expect(client.received.length).toBe(0);
    expect(client.isOpen).toBe(true);
    expect(hosts[2]?.stats.sessionsCurrent).toBe(1);
  });

  it('midReplyDisconnect: greets normally, then sends half the EHLO reply and closes', async () => {
    const client = await connect('127.0.7.40');
    expect((await client.reply()).code).toBe(220);
    await expect(client.command('EHLO p.test')).rejects.toThrow(/closed before a complete reply/);
    const text = client.received.toString('latin1');
    expect(text).toContain('250-mx.halfreply.test\r\n');
    expect(text.endsWith('\r\n')).toBe(false);
  });

  it('badTls: offers STARTTLS, says 220, then breaks the handshake', async () => {
    const client = await connect('127.0.7.50');
    await client.reply();
    expect((await client.command('EHLO p.test')).lines).toContain('250-STARTTLS');
    expect((await client.command('STARTTLS')).text).toBe('220 2.0.0 Ready to start TLS');
    await expect(client.startTls()).rejects.toThrow();
  });
});
