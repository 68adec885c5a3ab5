// Every scripted behaviour of the default world, through real sockets, checked on both ends:
// the raw replies the probe reports and the raw command lines the MX host received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyReply } from '@dv/verdict';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld, type WorldHandle } from '@dv/world';
import type { SessionRun } from './session.ts';
import { prober, request, testConfig } from './testing.ts';

let world: WorldHandle;
let probe: ReturnType<typeof prober>;
// Probes from their own source addresses where a host keeps per-client state.
const SOURCES = ['127.0.0.61', '127.0.0.62', '127.0.0.63'];
let probeFrom: ReturnType<typeof prober>;

beforeAll(async () => {
  world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
  probe = prober(testConfig(world.env));
  probeFrom = prober(testConfig(world.env, { PROBE_SOURCE_IPS: SOURCES.join(',') }));
});

afterAll(async () => {
  // Whatever ran in this file: no simulated host ever saw DATA/BDAT or a control character.
  for (const host of world.hosts.values()) {
    expect(host.dataCommands, host.name).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(host.commands.filter((l) => /[\u0000-\u001f\u007f]/.test(l)), host.name).toEqual([]);
  }
  await world.stop();
});

const byAddress = (run: SessionRun) => Object.fromEntries(run.reply.results.map((r) => [r.address, r]));
const codes = (run: SessionRun) => Object.fromEntries(run.reply.results.map((r) => [r.address, r.reply?.code ?? r.state]));
const verbs = (lines: string[]) => lines.map((l) => l.split(/[ :]/)[0]!.toUpperCase());

describe('a session against each scripted behaviour', () => {
  it('acme.test: STARTTLS, catch-all probe rejected, 250 / 550 5.1.1 / 552 5.2.2, then RSET and QUIT', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessions.length;
    const run = await probe(request('acme.test', ['mx1.acme.test'], ['alice@acme.test', 'nobody@acme.test', 'carol@acme.test', 'bob@acme.test']));
    const { reply } = run;
    expect(reply).toMatchObject({ outcome: 'completed', mx_used: 'mx1.acme.test', mx_ip: '127.0.1.10', source_ip: '127.0.0.1', tls: true, tls_verified: false, connections: 1 });
    expect(reply.catch_all?.address).toMatch(/^[a-z0-9]{16,}@acme\.test$/);
    expect(reply.catch_all?.reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    const r = byAddress(run);
    expect(r['alice@acme.test']).toMatchObject({ state: 'replied', stage: 'rcpt', reply: { code: 250, enhanced: '2.1.5', text: 'OK' } });
    expect(r['nobody@acme.test']!.reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    expect(r['nobody@acme.test']!.reply!.text).toContain('User unknown');
    expect(r['carol@acme.test']!.reply).toMatchObject({ code: 552, enhanced: '5.2.2' });
    expect(r['bob@acme.test']!.reply!.code).toBe(250);
    expect(reply.timings).toMatchObject({ connect_ms: expect.any(Number), greeting_ms: expect.any(Number), tls_ms: expect.any(Number), mail_ms: expect.any(Number) });
    const session = host.sessions[before]!;
    expect(session.tls).toBe(true);
    expect(verbs(session.commands)).toEqual(['EHLO', 'STARTTLS', 'EHLO', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
    expect(session.commands[0]).toBe('EHLO probe.test');
    expect(session.commands[3]).toBe('MAIL FROM:<verify@probe.test>');
    expect(session.commands[4]).toBe(`RCPT TO:<${reply.catch_all!.address}>`);
  });

  it('catchall.test: the catch-all probe is accepted, so the real RCPTs are never sent', async () => {
    const host = world.hosts.get('mx.catchall.test')!;
    const run = await probe(request('catchall.test', ['mx.catchall.test'], ['info@catchall.test', 'x@catchall.test']));
    expect(run.reply.outcome).toBe('completed');
    expect(run.reply.catch_all?.reply?.code).toBe(250);
    expect(run.reply.results.map((r) => r.state)).toEqual(['skipped_catch_all', 'skipped_catch_all']);
    expect(host.commands.some((l) => l.includes('info@catchall.test'))).toBe(false);
  });

  it('greylist.test: 450 4.7.1 on the first attempt', async () => {
    const run = await probe(request('greylist.test', ['mx.greylist.test'], ['user@greylist.test']));
    expect(run.reply.results[0]!.reply).toMatchObject({ code: 450, enhanced: '4.7.1' });
    expect(classifyReply(run.reply.results[0]!.reply!).class).toBe('greylisted');
  });

  it('ratelimit.test: the 4th session from one source address gets 421 at the greeting, for every address', async () => {
    const req = () => request('ratelimit.test', ['mx.ratelimit.test'], ['user@ratelimit.test', 'other@ratelimit.test'], { source_ip: SOURCES[0]! });
    for (let i = 0; i < 3; i++) expect((await probeFrom(req())).reply.results[0]!.reply!.code).toBe(250);
    const run = await probeFrom(req());
    expect(run.reply.outcome).toBe('completed');
    for (const r of run.reply.results) expect(r).toMatchObject({ state: 'replied', stage: 'greeting', reply: { code: 421, enhanced: '4.7.0' } });
    expect(classifyReply(run.reply.results[0]!.reply!).class).toBe('throttled');
    expect(run.observed).toHaveLength(1);
  });

  it('manyrcpt.test: 452 4.5.3 after 3 RCPTs -> reconnects with at most 3 RCPTs until every address is answered', async () => {
    const host = world.hosts.get('mx.manyrcpt.test')!;
    const before = host.sessions.length;
    const addresses = Array.from({ length: 10 }, (_, i) => `u${i}@manyrcpt.test`);
    const run = await probe(request('manyrcpt.test', ['mx.manyrcpt.test'], addresses, { catch_all_probe: false }));
    expect(run.reply.outcome).toBe('completed');
    expect(Object.values(codes(run))).toEqual(Array(10).fill(250));
    expect(run.reply.connections).toBe(4);
    const sessions = host.sessions.slice(before);
    expect(sessions).toHaveLength(4);
    expect(sessions.slice(1).map((s) => verbs(s.commands).filter((v) => v === 'RCPT').length)).toEqual([3, 3, 1]);
  });

  it('blocked.test: 554 5.7.1 policy block at RCPT, classified as a block of our IP', async () => {
    const run = await probe(request('blocked.test', ['mx.blocked.test'], ['user@blocked.test']));
    expect(run.reply.results[0]!.reply).toMatchObject({ code: 554, enhanced: '5.7.1' });
    expect(classifyReply(run.reply.results[0]!.reply!).class).toBe('policy_blocked');
  });

  it('listed.test: blocked from 127.0.0.1, passes from a configured source address it binds to', async () => {
    const blocked = await probe(request('listed.test', ['mx.listed.test'], ['user@listed.test']));
    expect(blocked.reply.results[0]!.reply!.code).toBe(554);
    const host = world.hosts.get('mx.listed.test')!;
    const run = await probeFrom(request('listed.test', ['mx.listed.test'], ['user@listed.test'], { source_ip: SOURCES[1]! }));
    expect(run.reply).toMatchObject({ outcome: 'completed', source_ip: SOURCES[1] });
    expect(run.reply.results[0]!.reply!.code).toBe(250);
    expect(host.sessions.at(-1)!.clientIp).toBe(SOURCES[1]);
  });

  it('refuses a source address that is not one of the node\'s, without connecting', async () => {
    const run = await probeFrom(request('acme.test', ['mx1.acme.test'], ['alice@acme.test'], { source_ip: '127.0.0.99' }));
    expect(run.reply).toMatchObject({ outcome: 'protocol_error', connections: 0 });
  });

  it('tarpit.test: a greeting slower than the greeting timeout ends the session as timeout', async () => {
    const host = world.hosts.get('mx.tarpit.test')!;
    const before = host.sessions.length;
    const run = await probe(request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test'], { timeouts: { greetingMs: 300 } }));
    expect(run.reply.outcome).toBe('timeout');
    expect(run.reply.detail).toMatch(/greeting/);
    // Order, not milliseconds: the probe hung up before the host (1 s per reply) ever greeted it.
    const seen = host.sessions.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.replies).toEqual([]);
    expect(seen[0]!.commands).toEqual([]);
  });

  it('tarpit.test: the session deadline bounds a slow dialogue whose every reply is within the command timeout', async () => {
    const run = await probe(request('tarpit.test', ['mx.tarpit.test'], ['user@tarpit.test'], { timeouts: { greetingMs: 5_000, commandMs: 5_000, sessionMs: 1_500 } }));
    expect(run.reply.outcome).toBe('timeout');
    expect(run.reply.detail).toMatch(/session time limit/);
    // Cut mid-dialogue: every reply came within the 5 s command timeout, yet the session never
    // reached RCPT (it would, 1 s per reply, without the 1.5 s deadline).
    const seen = world.hosts.get('mx.tarpit.test')!.sessions.at(-1)!;
    expect(verbs(seen.commands)).not.toContain('RCPT');
    expect(run.reply.results.every((r) => r.reply === null)).toBe(true);
  });

  it('drop.test: a reset at RCPT ends the session as dropped', async () => {
    const run = await probe(request('drop.test', ['mx.drop.test'], ['user@drop.test']));
    expect(run.reply.outcome).toBe('dropped');
    expect(run.reply.results[0]!.state).toBe('not_attempted');
  });

  it('starttls.test: TLS is used; without STARTTLS the 530 at MAIL FROM stands for every address', async () => {
    const run = await probe(request('starttls.test', ['mx.starttls.test'], ['user@starttls.test']));
    expect(run.reply).toMatchObject({ outcome: 'completed', tls: true });
    expect(run.reply.results[0]!.reply!.code).toBe(250);
    const clear = await prober(testConfig(world.env, { PROBE_STARTTLS: 'false' }))(request('starttls.test', ['mx.starttls.test'], ['user@starttls.test']));
    expect(clear.reply.tls).toBe(false);
    expect(clear.reply.results[0]).toMatchObject({ stage: 'mail', reply: { code: 530, enhanced: '5.7.0' } });
  });

  it('acceptall.test: 250 for any RCPT (without the catch-all probe, as for Yahoo-like providers)', async () => {
    const run = await probe(request('acceptall.test', ['mx.acceptall.test'], ['real@acceptall.test', 'zzz-not-real@acceptall.test'], { catch_all_probe: false }));
    expect(run.reply.catch_all).toBeNull();
    expect(Object.values(codes(run))).toEqual([250, 250]);
  });

  it('noverify.test: 252 for any RCPT', async () => {
    const run = await probe(request('noverify.test', ['mx.noverify.test'], ['user@noverify.test']));
    expect(run.reply.results[0]!.reply).toMatchObject({ code: 252, enhanced: '2.1.5' });
  });

  it('fallback.test: the first MX refuses connections, the next one answers', async () => {
    const run = await probe(request('fallback.test', ['mx1.fallback.test', 'mx2.fallback.test'], ['user@fallback.test']));
    expect(run.reply).toMatchObject({ outcome: 'completed', mx_used: 'mx2.fallback.test', connections: 2 });
    expect(run.reply.connect_errors).toEqual([{ host: 'mx1.fallback.test', ip: '127.0.6.10', error: 'connection refused' }]);
    expect(run.reply.results[0]!.reply!.code).toBe(250);
  });

  it('aonly.test: the A host passed as MX (implicit MX) is probed like any MX', async () => {
    const run = await probe(request('aonly.test', ['aonly.test'], ['user@aonly.test']));
    expect(run.reply).toMatchObject({ outcome: 'completed', mx_used: 'aonly.test' });
    expect(run.reply.results[0]!.reply!.code).toBe(250);
  });

  it('no reachable MX: connect_failed with every attempt listed', async () => {
    const run = await probe(request('badmx.test', ['mail.nowhere.test', 'mx1.fallback.test'], ['user@badmx.test']));
    expect(run.reply.outcome).toBe('connect_failed');
    expect(run.reply.connect_errors!.map((e) => e.error)).toEqual(['host name has no address', 'connection refused']);
    expect(run.reply.results[0]!.state).toBe('not_attempted');
  });
});

describe('wire hygiene', () => {
  it('never lets CR, LF, NUL or any control character of an address reach the wire', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.commands.length;
    const evil = ['x@acme.test>\r\nDATA\r\n', 'y\r\nRCPT TO:<bob@acme.test>@acme.test', 'nul\u0000@acme.test', 'lf\n@acme.test', 'cr\r@acme.test', 'sep\u2028@acme.test'];
    const run = await probe(request('acme.test', ['mx1.acme.test'], ['alice@acme.test', ...evil]));
    expect(run.reply.outcome).toBe('completed');
    const r = byAddress(run);
    expect(r['alice@acme.test']!.reply!.code).toBe(250);
    for (const address of evil) expect(r[address]).toMatchObject({ state: 'invalid_address', reply: null });
    const received = host.commands.slice(before);
    expect(received.filter((l) => l.startsWith('RCPT'))).toHaveLength(2); // catch-all probe + alice
    expect(received.some((l) => /DATA|bob@|nul|lf@|cr@|sep/.test(l))).toBe(false);
  });

  it('refuses a MAIL FROM with CR/LF before connecting', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.sessionsTotal;
    const run = await probe(request('acme.test', ['mx1.acme.test'], ['alice@acme.test'], { mail_from: 'v@probe.test>\r\nRCPT TO:<x@acme.test' }));
    expect(run.reply).toMatchObject({ outcome: 'protocol_error', connections: 0 });
    expect(host.sessionsTotal).toBe(before);
  });

  it('sends MAIL FROM with SMTPUTF8 for a non-ASCII address when the server offers it', async () => {
    const host = world.hosts.get('mx1.acme.test')!;
    const before = host.commands.length;
    const run = await probe(request('acme.test', ['mx1.acme.test'], ['josé@acme.test'], { catch_all_probe: false }));
    expect(run.reply.results[0]!.reply!.code).toBe(550);
    expect(host.commands.slice(before)).toContain('MAIL FROM:<verify@probe.test> SMTPUTF8');
  });
});

describe('DATA is never sent, with and without PIPELINING offered', () => {
  let w: WorldHandle;
  beforeAll(async () => {
    const host = (name: string, ip: string, pipelining: boolean) => ({ name, ip, mailboxes: ['a@pipe.test', 'b@pipe.test'], behaviour: { pipelining } });
    w = await startWorld({
      dns: {
        records: [
          { name: 'on.pipe.test', type: 'A', address: '127.0.8.10' },
          { name: 'off.pipe.test', type: 'A', address: '127.0.8.20' },
        ],
      },
      smtp: { hosts: [host('on.pipe.test', '127.0.8.10', true), host('off.pipe.test', '127.0.8.20', false)] },
    });
  });
  afterAll(() => w.stop());

  it.each([['on.pipe.test'], ['off.pipe.test']])('%s: accepted recipients, then RSET and QUIT, never DATA', async (mx) => {
    const run = await prober(testConfig(w.env))(request('pipe.test', [mx], ['a@pipe.test', 'b@pipe.test', 'c@pipe.test']));
    expect(Object.values(codes(run))).toEqual([250, 250, 550]);
    const stats = w.hosts.get(mx)!;
    expect(stats.dataCommands).toBe(0);
    expect(verbs(stats.sessions[0]!.commands)).toEqual(['EHLO', 'MAIL', 'RCPT', 'RCPT', 'RCPT', 'RCPT', 'RSET', 'QUIT']);
    expect(stats.commands.some((l) => /^(DATA|BDAT)/i.test(l))).toBe(false);
  });
});
