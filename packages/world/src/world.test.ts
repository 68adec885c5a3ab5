import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, WorldValidationError, findFreePort, loadWorld, startSmtpHost, startWorld } from './index.ts';
import type { WorldHandle, WorldInput } from './index.ts';
import { RawSmtpClient } from './testing/smtp-client.ts';

function connectError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

function resolverFor(world: WorldHandle): Resolver {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers(world.env.DNS_SERVERS?.split(',') ?? []);
  return resolver;
}

describe('the default world', () => {
  let world: WorldHandle;

  beforeAll(async () => {
    world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  });

  afterAll(async () => {
    await world.stop();
  });

  it('is fully up when startWorld resolves: DNS, SMTP and RDAP answer the first request', async () => {
    // Order and outcome, not a time budget: nothing is asked before this point, and nothing retries
    // (one try each; the resolver's 5 s only absorbs a loaded machine, it is not a readiness wait).
    const resolver = new Resolver({ timeout: 5_000, tries: 1 });
    resolver.setServers([world.dns.server]);
    expect(await resolver.resolve4('mx1.acme.test')).toEqual(['127.0.1.10']);
    const client = await RawSmtpClient.connect({ host: '127.0.1.10', port: world.smtpPort });
    try {
      expect((await client.reply()).code).toBe(220);
    } finally {
      client.destroy();
    }
    expect((await fetch(world.rdapBootstrapUrl)).status).toBe(200);
  });

  it('hands a service its configuration as environment variables', () => {
    expect(world.env).toEqual({
      DNS_SERVERS: `127.0.0.1:${world.dns.port}`,
      // The world's own names for the services' resolver sanity check (gmail.com does not exist here).
      DNS_CANARIES: 'ns1.simulated.test,mx1.acme.test,acme.test',
      SMTP_PORT: String(world.smtpPort),
      RDAP_BOOTSTRAP_URL: world.rdapBootstrapUrl,
    });
    expect(world.dns.server).toBe(world.env.DNS_SERVERS);
  });

  it('routes mail like the internet: MX lookup, A lookup, then SMTP on that address', async () => {
    const resolver = resolverFor(world);
    const [mx] = await resolver.resolveMx('acme.test');
    const [ip] = await resolver.resolve4(mx?.exchange ?? '');
    const client = await RawSmtpClient.connect({ host: ip ?? '', port: Number(world.env.SMTP_PORT) });
    try {
      expect((await client.reply()).text).toBe('220 mx1.acme.test ESMTP Postfix');
    } finally {
      client.destroy();
    }
    expect(world.hosts.get('mx1.acme.test')?.sessionsTotal).toBeGreaterThanOrEqual(1);
  });

  it('has an implicit-MX domain served on its A record address', async () => {
    const resolver = resolverFor(world);
    await expect(resolver.resolveMx('aonly.test')).rejects.toMatchObject({ code: 'ENODATA' });
    const [ip] = await resolver.resolve4('aonly.test');
    const client = await RawSmtpClient.connect({ host: ip ?? '', port: world.smtpPort });
    try {
      expect((await client.reply()).text).toBe('220 aonly.test ESMTP Postfix');
    } finally {
      client.destroy();
    }
  });

  it('refuses connections on the first MX of fallback.test so clients fall back to the second', async () => {
    const resolver = resolverFor(world);
    const mx = (await resolver.resolveMx('fallback.test')).sort((a, b) => a.priority - b.priority);
    const [first] = await resolver.resolve4(mx[0]?.exchange ?? '');
    const [second] = await resolver.resolve4(mx[1]?.exchange ?? '');
    expect(await connectError(first ?? '', world.smtpPort)).toBe('ECONNREFUSED');
    expect(await connectError(second ?? '', world.smtpPort)).toBeUndefined();
  });

  it('answers DNSBL queries like Spamhaus ZEN', async () => {
    const resolver = resolverFor(world);
    expect((await resolver.resolve4('2.0.0.127.zen.dnsbl.test')).sort()).toEqual(['127.0.0.10', '127.0.0.2']);
    expect(await resolver.resolve4('3.0.0.127.zen.dnsbl.test')).toEqual(['127.255.255.254']);
    await expect(resolver.resolve4('1.0.0.127.zen.dnsbl.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('finds RDAP data through the bootstrap file', async () => {
    const bootstrap = (await (await fetch(world.env.RDAP_BOOTSTRAP_URL ?? '')).json()) as { services: [string[], string[]][] };
    const base = bootstrap.services.find(([tlds]) => tlds.includes('test'))?.[1][0];
    expect(base).toBe(world.rdapBaseUrl);
    const domain = (await (await fetch(`${base}domain/acme.test`)).json()) as { ldhName: string };
    expect(domain.ldhName).toBe('acme.test');
  });

  it('speaks to nodemailer: opportunistic STARTTLS with the test certificate, DATA refused with 554', async () => {
    const stats = world.hosts.get('mx1.acme.test');
    const dataBefore = stats?.dataCommands ?? 0;
    const connection = new SMTPConnection({ host: '127.0.1.10', port: world.smtpPort, name: 'probe.test', tls: { rejectUnauthorized: false } });
    try {
      await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
      const error = await new Promise<{ responseCode?: number; rejected?: string[] } | null>((resolve) =>
        connection.send({ from: 'probe@sender.test', to: ['alice@acme.test', 'nobody@acme.test'] }, 'Subject: x\r\n\r\nx\r\n', (err) =>
          resolve(err as never),
        ),
      );
      expect(error?.responseCode).toBe(554);
    } finally {
      connection.close();
    }
    expect(stats?.dataCommands).toBe(dataBefore + 1);
    expect(stats?.sessions.at(-1)?.tls).toBe(true);
    expect(stats?.sessions.at(-1)?.commands).toEqual(expect.arrayContaining(['STARTTLS', 'RCPT TO:<alice@acme.test>', 'DATA']));
  });

  it('reset() clears host stats and the DNS query log', async () => {
    await resolverFor(world).resolveMx('acme.test');
    expect(world.dns.queries.length).toBeGreaterThan(0);
    world.reset();
    expect(world.dns.queries).toHaveLength(0);
    for (const stats of world.hosts.values()) expect([stats.sessionsTotal, stats.commands.length, stats.dataCommands]).toEqual([0, 0, 0]);
  });
});

describe('startWorld', () => {
  const tiny: WorldInput = {
    latencyMs: 120,
    dns: { records: [{ name: 'mx.tiny.test', type: 'A', address: '127.0.9.1' }] },
    smtp: { hosts: [{ name: 'mx.tiny.test', ip: '127.0.9.1', mailboxes: ['u@tiny.test'] }] },
    rdap: { domains: { 'tiny.test': { registrar: 'R', created: '2020-01-01', expires: '2030-01-01' } } },
  };

  it('adds the world latency to DNS answers and SMTP replies', async () => {
    const world = await startWorld(tiny);
    try {
      let startedMs = Date.now();
      expect(await resolverFor(world).resolve4('mx.tiny.test')).toEqual(['127.0.9.1']);
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(115);
      startedMs = Date.now();
      const client = await RawSmtpClient.connect({ host: '127.0.9.1', port: world.smtpPort });
      await client.reply();
      client.destroy();
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(115);
    } finally {
      await world.stop();
    }
  });

  it('uses the ports it is given, and setRecords swaps the DNS data', async () => {
    const [dnsPort, smtpPort, rdapPort] = [await findFreePort(), await findFreePort('127.0.9.1'), await findFreePort()];
    const world = await startWorld({ ...tiny, latencyMs: 0 }, { dnsPort, smtpPort, rdapPort });
    try {
      expect([world.dns.port, world.smtpPort]).toEqual([dnsPort, smtpPort]);
      expect(world.rdapBaseUrl).toBe(`http://127.0.0.1:${rdapPort}/rdap/`);
      world.setRecords([{ name: 'scenario.test', type: 'TXT', text: 'v=spf1 -all' }]);
      const resolver = resolverFor(world);
      expect(await resolver.resolveTxt('scenario.test')).toEqual([['v=spf1 -all']]);
      await expect(resolver.resolve4('mx.tiny.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    } finally {
      await world.stop();
    }
  });

  it('fails cleanly, releasing what it started, when the SMTP port is taken', async () => {
    const squatter = await startSmtpHost({ name: 'squat.tiny.test', ip: '127.0.9.1' });
    const dnsPort = await findFreePort();
    try {
      await expect(startWorld(tiny, { dnsPort, smtpPort: squatter.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(await connectError('127.0.0.1', dnsPort)).toBe('ECONNREFUSED');
    } finally {
      await squatter.stop();
    }
  });

  it('rejects an invalid world before listening on anything', async () => {
    await expect(startWorld({ smtp: { hosts: [{ name: 'mx.test', ip: '127.0.0.1' }] } })).rejects.toBeInstanceOf(WorldValidationError);
  });

  it('stop() closes every listener and is idempotent', async () => {
    const world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
    const openClient = await RawSmtpClient.connect({ host: '127.0.7.30', port: world.smtpPort });
    const rdapPort = Number(new URL(world.rdapBaseUrl).port);
    await Promise.all([world.stop(), world.stop()]);
    await world.stop();
    await openClient.closed;
    expect(await connectError('127.0.0.1', world.dns.port)).toBe('ECONNREFUSED');
    expect(await connectError('127.0.0.1', rdapPort)).toBe('ECONNREFUSED');
    for (const host of world.hosts.values()) expect(await connectError(host.ip, world.smtpPort)).toBe('ECONNREFUSED');
    const resolver = resolverFor(world);
    await expect(resolver.resolve4('acme.test')).rejects.toMatchObject({ code: expect.stringMatching(/ECONNREFUSED|ETIMEOUT/) });
  });
});
