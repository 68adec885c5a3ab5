import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, KV_BUCKETS, NATS_USERS, STREAMS, SUBJECTS, natsInboxPrefix, natsPermissions, type NatsUser } from '@dv/contracts';
import { Kvm } from '@nats-io/kv';
import { connectNats, createLogger, ensureKvBuckets, ensureStreams } from '@dv/runtime';
import { freePort, localNatsAuthorization, natsUserEnv, renderNatsAuthorization, startProcess, stopProcess, waitForPort, which, type Managed } from '@dv/stack';
import { until } from '@dv/test-kit';
import { PROBE_DEFAULTS } from '@dv/probe-node/defaults';
import { SCHEDULER_DEFAULTS } from '@dv/scheduler/defaults';

// A real nats-server with the generated users (no anonymous user, as in production): each role can
// do its own work and nothing else.
let dir: string;
let server: Managed;
let url: string;
const clients: NatsConnection[] = [];

async function as(user: NatsUser | 'nobody', password?: string): Promise<NatsConnection> {
  const pass = password ?? readFileSync(join(dir, 'users', user), 'utf8').trim();
  const nc = await connect({ servers: url, user, pass, inboxPrefix: natsInboxPrefix(user), maxReconnectAttempts: 0 });
  clients.push(nc);
  return nc;
}

/** Collects the permission errors the server reports on this connection. */
function violations(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') seen.push(s.error.message);
  })();
  return seen;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dv-nats-auth-'));
  const conf = join(dir, 'nats.conf');
  writeFileSync(conf, localNatsAuthorization(join(dir, 'users'), false), { mode: 0o600 });
  const port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  server = startProcess('nats', which('nats-server') ?? 'nats-server', ['-c', conf, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js')], dir);
  await waitForPort('127.0.0.1', port, 15_000, () => server.alive());
  // The gateway's user creates VERIFY as a gateway does at start.
  const gw = await as('gateway');
  await ensureStreams(await jetstreamManager(gw), STREAMS.filter((s) => s.name === 'VERIFY'), CONSUMERS.filter((c) => c.stream === 'VERIFY'));
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  if (server) await stopProcess(server);
  rmSync(dir, { recursive: true, force: true });
});

describe('the permissioned bus', () => {
  it('refuses a client without a user, and a wrong password', async () => {
    await expect(connect({ servers: url, maxReconnectAttempts: 0, reconnect: false })).rejects.toThrow(/Authorization/i);
    await expect(as('scheduler', 'not-the-password')).rejects.toThrow(/Authorization/i);
  });

  it('lets the scheduler request a probe session, and no client without the scheduler user', async () => {
    const node = await as('probe-node');
    const asked: string[] = [];
    node.subscribe(SUBJECTS.probeSession('n1'), { callback: (_err, msg) => {
      asked.push(msg.string());
      msg.respond('session done');
    } });
    await node.flush();

    const scheduler = await as('scheduler');
    expect((await scheduler.request(SUBJECTS.probeSession('n1'), 'from scheduler', { timeout: 5_000 })).string()).toBe('session done');

    for (const user of ['gateway', 'probe-node', 'portfolio-scanner'] as const) {
      const nc = await as(user);
      const errors = violations(nc);
      await expect(nc.request(SUBJECTS.probeSession('n1'), `from ${user}`, { timeout: 1_500 })).rejects.toThrow();
      await until(() => /Permissions Violation for Publish to "probe\.n1\.session"/.test(errors.join(' ')), 5_000, `${user}'s request refused`);
    }
    expect(asked).toEqual(['from scheduler']);
  });

  it('takes heartbeats from probe nodes only', async () => {
    const scheduler = await as('scheduler');
    const beats: string[] = [];
    scheduler.subscribe(SUBJECTS.probeHeartbeat, { callback: (_err, msg) => {
      beats.push(msg.string());
    } });
    await scheduler.flush();
    for (const user of ['gateway', 'scheduler', 'portfolio-scanner'] as const) {
      const nc = await as(user);
      const errors = violations(nc);
      nc.publish(SUBJECTS.probeHeartbeat, `forged by ${user}`);
      await until(() => /Permissions Violation for Publish to "probe\.heartbeat"/.test(errors.join(' ')), 5_000, `${user}'s heartbeat refused`);
    }
    const node = await as('probe-node');
    node.publish(SUBJECTS.probeHeartbeat, 'real');
    await node.flush();
    await scheduler.flush();
    expect(beats).toEqual(['real']);
  });

  it('keeps the VERIFY stream to the gateway and scheduler', async () => {
    const node = await as('probe-node');
    await expect(jetstream(node).publish(SUBJECTS.verifySingle, '{}', { timeout: 1_500 })).rejects.toThrow();
    const portfolio = await as('portfolio-scanner');
    await expect(jetstream(portfolio).publish(SUBJECTS.verifyList, '{}', { timeout: 1_500 })).rejects.toThrow();
    // Nor may a probe node pull the scheduler's consumer.
    await expect(jetstream(node).consumers.get('VERIFY', 'scheduler-single')).rejects.toThrow();

    const gw = await as('gateway');
    expect((await jetstream(gw).publish(SUBJECTS.verifySingle, '{}')).stream).toBe('VERIFY');
    const scheduler = await as('scheduler');
    const msg = await (await jetstream(scheduler).consumers.get('VERIFY', 'scheduler-single')).next({ expires: 2_000 });
    expect(msg?.subject).toBe(SUBJECTS.verifySingle);
    msg?.ack();
    // Nothing the refused publishers sent reached the stream.
    expect((await (await jetstreamManager(gw)).streams.info('VERIFY')).state.messages).toBe(0);
  });

  it("counts each refusal for the service's nats_permission_violations_total (connectNats hook)", async () => {
    let refused = 0;
    const password = readFileSync(join(dir, 'users', 'gateway'), 'utf8').trim();
    const dep = await connectNats(url, 'gateway', createLogger('gateway', 'silent'), { user: 'gateway', password }, { onPermissionViolation: () => refused++ });
    try {
      dep.nc.publish(SUBJECTS.probeHeartbeat, 'forged');
      await until(() => refused === 1, 5_000, 'refusal counted');
      // Its own subjects are not refusals.
      dep.nc.publish('verify.item.single', '{}');
      await dep.nc.flush();
      expect(refused).toBe(1);
      expect(await dep.isReady()).toBe(true);
    } finally {
      await dep.close();
    }
  });

  it('lets schedulers write the LOAD figures and gateways only read them', async () => {
    const gw = await as('gateway');
    await ensureKvBuckets(gw, KV_BUCKETS);
    const scheduler = await as('scheduler');
    await (await new Kvm(scheduler).open('LOAD')).put('s1', 'figures');
    const view = await new Kvm(gw).open('LOAD');
    expect((await view.get('s1'))?.string()).toBe('figures');
    await expect(view.put('s1', 'forged')).rejects.toThrow();
    expect((await view.get('s1'))?.string()).toBe('figures');
  });

  it('keeps each user to its own inboxes', async () => {
    const gw = await as('gateway');
    const errors = violations(gw);
    const sub = gw.subscribe(`${natsInboxPrefix('scheduler')}.>`);
    await until(() => /Permissions Violation for Subscription to "_INBOX\.scheduler\.>"/.test(errors.join(' ')), 5_000, 'subscription refused');
    await expect(sub.closed).resolves.toBeInstanceOf(Error);
  });
});

describe('the generated configuration', () => {
  it('names every user once, with its permissions, and the anonymous user only when asked', () => {
    const conf = renderNatsAuthorization((u) => `$PW_${u.replace('-', '_')}`);
    for (const user of NATS_USERS) expect(conf.split(`user: "${user}"`).length - 1).toBe(1);
    expect(conf).not.toMatch(/no_auth_user/);
    expect(renderNatsAuthorization(() => '"x"', { user: 'dev', password: 'y' })).toMatch(/no_auth_user: "dev"/);
    // Only schedulers publish session requests; only probe nodes heartbeats.
    const publishers = (subject: string) => NATS_USERS.filter((u) => natsPermissions(u).publish.includes(subject));
    expect(publishers(SUBJECTS.probeSession('*'))).toEqual(['scheduler']);
    expect(publishers(SUBJECTS.probeHeartbeat)).toEqual(['probe-node']);
    expect(publishers('verify.item.>')).toEqual(['gateway', 'scheduler']);
  });

  it('has a publisher for every subject in SUBJECTS, and a subscriber for every core NATS one (a new subject needs a role)', () => {
    // NATS wildcards: `*` one token, `>` the rest.
    const matches = (pattern: string, subject: string) => {
      const p = pattern.split('.');
      const s = subject.split('.');
      for (let i = 0; i < p.length; i++) {
        if (p[i] === '>') return s.length > i;
        if (p[i] !== '*' && p[i] !== s[i]) return false;
      }
      return p.length === s.length;
    };
    const jetStream = new Set(STREAMS.flatMap((st) => st.subjects));
    for (const value of Object.values(SUBJECTS)) {
      const subject = typeof value === 'function' ? value('x1') : value.replace('>', 'x1');
      const publishers = NATS_USERS.filter((u) => natsPermissions(u).publish.some((p) => matches(p, subject)));
      expect(publishers.length, `${subject}: no role may publish it`).toBeGreaterThan(0);
      if ([...jetStream].some((p) => matches(p, subject))) continue;
      const subscribers = NATS_USERS.filter((u) => natsPermissions(u).subscribe.some((p) => matches(p, subject)));
      expect(subscribers.length, `${subject}: no role may subscribe to it`).toBeGreaterThan(0);
    }
  });

  it("lets a probe node answer for longer than its longest session plus the scheduler's wait", () => {
    const bound = natsPermissions('probe-node').responseExpiresS! * 1000;
    expect(bound).toBeGreaterThan(PROBE_DEFAULTS.maxSessionTimeoutMs + SCHEDULER_DEFAULTS.probeRequestMarginMs);
    expect(renderNatsAuthorization(() => '"x"')).toContain(`allow_responses: { max: 1, expires: "${bound / 1000}s" }`);
    expect(NATS_USERS.filter((u) => natsPermissions(u).responseExpiresS !== undefined)).toEqual(['probe-node']);
  });

  it('gives a service started on a local stack its own user and password file', () => {
    expect(natsUserEnv('/s/nats-users', 'scheduler')).toEqual({ NATS_USER: 'scheduler', NATS_PASSWORD_FILE: '/s/nats-users/scheduler' });
    expect(natsUserEnv('/s/nats-users', 'lookup')).toEqual({});
    expect(natsUserEnv(undefined, 'scheduler')).toEqual({});
  });
});
