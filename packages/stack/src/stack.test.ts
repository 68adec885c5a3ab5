import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as natsConnect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '@dv/test-kit';
import { startStack, type Stack } from './stack.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dv-stack-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = tcpConnect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', () => resolve(true));
  });
}

describe('local stack launcher', () => {
  it('starts NATS with JetStream, Redis and a MongoDB replica set on free ports, then stops them all', { timeout: 180_000 }, async () => {
    const stack: Stack = await startStack({ dataDir: tempDir() });
    const { nats, redis, mongodb } = stack.servers;
    expect(nats && redis && mongodb).toBeTruthy();
    const ports = [nats!.port, redis!.port, mongodb!.port];
    expect(new Set(ports).size).toBe(3);
    expect(ports).not.toContain(4222);
    expect(ports).not.toContain(6379);
    expect(ports).not.toContain(27017);
    const pids = [nats!.pid(), redis!.pid(), mongodb!.pid()] as number[];
    expect(pids.every((p) => typeof p === 'number' && isAlive(p))).toBe(true);

    const nc = await natsConnect({ servers: stack.env.NATS_URL });
    expect(nc.info?.jetstream).toBe(true);
    await nc.close();
    const r = new Redis(stack.env.REDIS_URL as string);
    expect(await r.ping()).toBe('PONG');
    r.disconnect();
    const mc = new MongoClient(stack.env.MONGODB_URL as string);
    const hello = await mc.db('admin').command({ hello: 1 });
    expect(hello.setName).toBe('rs0');
    expect(hello.isWritablePrimary).toBe(true);
    await mc.close();

    await stack.stop();
    expect(pids.filter(isAlive)).toEqual([]);
    for (const port of ports) expect(await refuses(port)).toBe(true);
  });

  it('restarts one server on the same port with its data kept', { timeout: 60_000 }, async () => {
    const stack = await startStack({ dataDir: tempDir(), servers: ['redis'] });
    try {
      const url = stack.env.REDIS_URL as string;
      const before = new Redis(url);
      await before.set('survives', 'yes');
      before.disconnect();
      await stack.servers.redis!.stop();
      expect(stack.servers.redis!.running()).toBe(false);
      await stack.servers.redis!.start();
      const after = new Redis(url);
      expect(await after.get('survives')).toBe('yes');
      after.disconnect();
    } finally {
      await stack.stop();
    }
  });

  it('ends servers a killed launcher left behind in the same data folder', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const orphaned = await startStack({ dataDir: dir, servers: ['nats'] });
    const orphanPid = orphaned.servers.nats!.pid() as number;
    expect(isAlive(orphanPid)).toBe(true);
    const next = await startStack({ dataDir: dir, servers: ['nats'] });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(isAlive(orphanPid)).toBe(false);
    } finally {
      await next.stop();
      await orphaned.stop();
    }
  });

});
