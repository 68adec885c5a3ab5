import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpHostSpecInput } from '../schema.ts';
import { RawSmtpClient } from '../testing/smtp-client.ts';
import { startSmtpHosts } from './host.ts';
import type { SmtpHostHandle } from './host.ts';
import { REPLIES } from './replies.ts';

const HOSTS: SmtpHostSpecInput[] = [
  {
    name: 'mx.normal.test',
    ip: '127.0.1.1',
    mailboxes: ['alice@normal.test', 'Full@normal.test'],
    behaviour: { starttls: true, mailboxFull: ['full@normal.test'], maxConcurrentSessions: 2 },
  },
  { name: 'mx.greylist.test', ip: '127.0.1.2', mailboxes: ['user@greylist.test'], behaviour: { greylistSeconds: 1 } },
  { name: 'mx.ratelimit.test', ip: '127.0.1.3', mailboxes: ['user@ratelimit.test'], behaviour: { rateLimitAfterSessions: 2 } },
  { name: 'mx.ratemail.test', ip: '127.0.1.4', behaviour: { rateLimitAfterSessions: 0, rateLimitAt: 'mail', catchAll: true } },
  { name: 'mx.manyrcpt.test', ip: '127.0.1.5', behaviour: { catchAll: true, maxRecipientsPerSession: 2 } },
  { name: 'mx.listed.test', ip: '127.0.1.6', mailboxes: ['user@listed.test'], behaviour: { policyBlockIps: ['127.0.0.1'] } },
  { name: 'mx.blockall.test', ip: '127.0.1.7', behaviour: { policyBlockAll: true, policyBlockAt: 'greeting' } },
  { name: 'mx.greyreset.test', ip: '127.0.1.9', mailboxes: ['user@greyreset.test'], behaviour: { greylistSeconds: 0.2 } },
  { name: 'mx.tarpit.test', ip: '127.0.1.8', mailboxes: ['user@tarpit.test'], behaviour: { tarpitMs: 300 } },
  { name: 'mx.drop-greeting.test', ip: '127.0.2.1', behaviour: { dropAfter: 'greeting' } },
  { name: 'mx.drop-ehlo.test', ip: '127.0.2.2', behaviour: { dropAfter: 'ehlo' } },
  { name: 'mx.drop-mail.test', ip: '127.0.2.3', behaviour: { dropAfter: 'mail' } },
  { name: 'mx.drop-rcpt.test', ip: '127.0.2.4', behaviour: { dropAfter: 'rcpt' } },
  { name: 'mx.starttls.test', ip: '127.0.3.1', mailboxes: ['user@starttls.test'], behaviour: { requireStartTls: true } },
  { name: 'mx.acceptall.test', ip: '127.0.3.2', mailboxes: ['real@acceptall.test'], behaviour: { acceptAllAtRcpt: true } },
  { name: 'mx.noverify.test', ip: '127.0.3.3', behaviour: { willNotVerify: true } },
  { name: 'mx.catchall.test', ip: '127.0.3.4', behaviour: { catchAll: true } },
  { name: 'mx.nopipe.test', ip: '127.0.3.5', behaviour: { pipelining: false } },
  { name: 'mx.harvest.test', ip: '127.0.3.6', mailboxes: ['real@harvest.test'], behaviour: { softErrorLimit: 2, hardErrorLimit: 4, errorSleepMs: 300 } },
  { name: 'mx.harvest452.test', ip: '127.0.3.7', behaviour: { catchAll: true, maxRecipientsPerSession: 1, hardErrorLimit: 1 } },
  { name: 'mx.tempfail.test', ip: '127.0.3.8', mailboxes: ['user@tempfail.test'], behaviour: { temporaryFailure: true } },
];

let port: number;
let hosts: Map<string, SmtpHostHandle>;
const clients: RawSmtpClient[] = [];

beforeAll(async () => {
  const started = await startSmtpHosts(HOSTS);
  port = started.port;
  hosts = new Map(started.hosts.map((h) => [h.name, h]));
});

afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.destroy();
    await client.closed;
  }
});

afterAll(async () => {
  await Promise.all([...hosts.values()].map((h) => h.stop()));
});

function host(name: string): SmtpHostHandle {
  const found = hosts.get(name);
  if (found === undefined) throw new Error(`no host ${name}`);
  return found;
}

async function connect(name: string, localAddress?: string): Promise<RawSmtpClient> {
  const client = await RawSmtpClient.connect({ host: host(name).ip, port, localAddress, timeoutMs: 3000 });
  clients.push(client);
  return client;
}

// Greeting, EHLO and MAIL FROM done: ready for RCPT.
async function ready(name: string, localAddress?: string, from = 'probe@sender.test'): Promise<RawSmtpClient> {
  const client = await connect(name, localAddress);
  expect((await client.reply()).code).toBe(220);
  expect((await client.command('EHLO probe.sender.test')).code).toBe(250);
  expect((await client.command(`MAIL FROM:<${from}>`)).text).toBe(REPLIES.mailOk);
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

describe('default behaviour', () => {
  it('greets with the host name and accepts listed mailboxes, case-insensitively', async () => {
    const client = await connect('mx.normal.test');
    expect((await client.reply()).text).toBe('220 mx.normal.test ESMTP Postfix');
    const ehlo = await client.command('EHLO probe.sender.test');
    expect(ehlo.lines).toEqual(['250-mx.normal.test', '250-PIPELINING', '250-SIZE 10240000', '250-STARTTLS', '250-ENHANCEDSTATUSCODES', '250-8BITMIME', '250 SMTPUTF8']);
    expect((await client.command('MAIL FROM:<probe@sender.test>')).text).toBe('250 2.1.0 Ok');
    expect((await client.command('RCPT TO:<alice@normal.test>')).text).toBe('250 2.1.5 OK');
    expect((await client.command('RCPT TO:<ALICE@Normal.Test>')).text).toBe('250 2.1.5 OK');
  });

  it('rejects unknown mailboxes with 550 5.1.1, quoting the address as given', async () => {
    const client = await ready('mx.normal.test');
    expect((await client.command('RCPT TO:<Nobody@normal.test>')).text).toBe(
      '550 5.1.1 <Nobody@normal.test>: Recipient address rejected: User unknown in virtual mailbox table',
    );
  });

  it('answers 552 for a full mailbox', async () => {
    const client = await ready('mx.normal.test');
    expect((await client.command('RCPT TO:<full@normal.test>')).text).toBe('552 5.2.2 <full@normal.test>: Mailbox full');
  });

  it('refuses DATA with 554 and counts it', async () => {
    const normal = host('mx.normal.test');
    const before = normal.stats.dataCommands;
    const client = await ready('mx.normal.test');
    await client.command('RCPT TO:<alice@normal.test>');
    expect((await client.command('DATA')).text).toBe(REPLIES.dataRefused);
    expect(normal.stats.dataCommands).toBe(before + 1);
    expect(host('mx.catchall.test').stats.dataCommands).toBe(0);
  });

  it('enforces command order and syntax like Postfix', async () => {
    const client = await connect('mx.normal.test');
    await client.reply();
    expect((await client.command('MAIL FROM:<a@b.test>')).text).toBe(REPLIES.helloFirst);
    await client.command('HELO probe.sender.test');
    expect((await client.command('RCPT TO:<alice@normal.test>')).text).toBe(REPLIES.needMail);
    expect((await client.command('MAIL FROM:a@b.test')).text).toBe(REPLIES.mailSyntax);
    expect((await client.command('MAIL FROM:<>')).text).toBe(REPLIES.mailOk);
    expect((await client.command('MAIL FROM:<a@b.test>')).text).toBe(REPLIES.nestedMail);
    expect((await client.command('RCPT TO:<>')).text).toBe(REPLIES.rcptSyntax);
    expect((await client.command('VRFY alice')).text).toBe(REPLIES.vrfyDisabled);
    expect((await client.command('XYZZY')).text).toBe(REPLIES.notRecognized);
    expect((await client.command('RSET')).text).toBe(REPLIES.ok);
    expect((await client.command('QUIT')).text).toBe('221 2.0.0 Bye');
    await client.closed;
  });

  it('answers a pipelined batch in order', async () => {
    const client = await connect('mx.normal.test');
    await client.reply();
    client.writeRaw('EHLO p.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<alice@normal.test>\r\nRCPT TO:<x@normal.test>\r\nQUIT\r\n');
    const codes = [];
    for (let i = 0; i < 5; i += 1) codes.push((await client.reply()).code);
    expect(codes).toEqual([250, 250, 250, 550, 221]);
  });

  it('refuses an endless line with 500 and closes', async () => {
    const client = await connect('mx.normal.test');
    await client.reply();
    client.writeRaw('X'.repeat(70 * 1024));
    expect((await client.reply()).text).toBe(REPLIES.lineTooLong);
    await client.closed;
  });
});

describe('scripted behaviours', () => {
  it('greylists a new triplet with 450 4.7.1 until the window has passed', async () => {
    const first = await ready('mx.greylist.test');
    const greylisted = '450 4.7.1 <user@greylist.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/greylist.test.html';
    expect((await first.command('RCPT TO:<user@greylist.test>')).text).toBe(greylisted);
    expect((await first.command('RCPT TO:<user@greylist.test>')).text).toBe(greylisted);
    const otherSender = await ready('mx.greylist.test', undefined, 'other@sender.test');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await first.command('RCPT TO:<user@greylist.test>')).text).toBe('250 2.1.5 OK');
    // After the window the real answer shows through, unknown users included.
    expect((await first.command('RCPT TO:<ghost@greylist.test>')).code).toBe(450);
    // A triplet first seen after the window is greylisted on its own clock.
    expect((await otherSender.command('RCPT TO:<user@greylist.test>')).code).toBe(450);
  });

  it('reset() forgets greylist triplets', async () => {
    const attempt = async (): Promise<number> => (await (await ready('mx.greyreset.test')).command('RCPT TO:<user@greyreset.test>')).code;
    expect(await attempt()).toBe(450);
    await new Promise((r) => setTimeout(r, 250));
    host('mx.greyreset.test').reset();
    expect(await attempt()).toBe(450);
    await new Promise((r) => setTimeout(r, 250));
    expect(await attempt()).toBe(250);
  });

  it('answers 421 4.7.0 to the greeting from the (K+1)-th session per client, and closes', async () => {
    for (let i = 0; i < 2; i += 1) {
      const allowed = await connect('mx.ratelimit.test', '127.0.0.21');
      expect((await allowed.reply()).code).toBe(220);
    }
    const limited = await connect('mx.ratelimit.test', '127.0.0.21');
    expect((await limited.reply()).text).toBe('421 4.7.0 Try again later, closing connection.');
    await limited.closed;
    const otherClient = await connect('mx.ratelimit.test', '127.0.0.22');
    expect((await otherClient.reply()).code).toBe(220);
  });

  it('can rate limit at MAIL FROM instead of the greeting', async () => {
    const client = await connect('mx.ratemail.test');
    expect((await client.reply()).code).toBe(220);
    await client.command('EHLO p.test');
    expect((await client.command('MAIL FROM:<a@b.test>')).text).toBe(REPLIES.rateLimited);
    await client.closed;
  });

  it('answers 452 4.5.3 from the (R+1)-th RCPT of a session', async () => {
    const client = await ready('mx.manyrcpt.test');
    expect((await client.command('RCPT TO:<a@manyrcpt.test>')).code).toBe(250);
    expect((await client.command('RCPT TO:<b@manyrcpt.test>')).code).toBe(250);
    expect((await client.command('RCPT TO:<c@manyrcpt.test>')).text).toBe('452 4.5.3 Too many recipients');
    expect((await client.command('RCPT TO:<d@manyrcpt.test>')).code).toBe(452);
  });

  it('harvest defence: counts errors across RSET, slows every reply from the soft limit, cuts with 421 at the hard limit', async () => {
    const client = await ready('mx.harvest.test');
    const timed = async (line: string): Promise<{ text: string; ms: number }> => {
      const t = Date.now();
      const { text } = await client.command(line);
      return { text, ms: Date.now() - t };
    };
    const first = await timed('RCPT TO:<a@harvest.test>');
    expect(first.text).toMatch(/^550 5\.1\.1 /);
    expect(first.ms).toBeLessThan(250);
    expect((await timed('RCPT TO:<real@harvest.test>')).ms).toBeLessThan(250);
    expect((await timed('RSET')).text).toBe(REPLIES.ok);
    expect((await client.command('MAIL FROM:<probe@sender.test>')).code).toBe(250);
    // Second error, after RSET: the soft limit (2) is reached, so this reply and every later one waits.
    const second = await timed('RCPT TO:<b@harvest.test>');
    expect(second.text).toMatch(/^550 /);
    expect(second.ms).toBeGreaterThanOrEqual(295);
    const accepted = await timed('RCPT TO:<real@harvest.test>');
    expect(accepted.text).toBe(REPLIES.rcptOk);
    expect(accepted.ms).toBeGreaterThanOrEqual(295);
    expect((await client.command('RCPT TO:<c@harvest.test>')).code).toBe(550);
    expect((await client.command('RCPT TO:<d@harvest.test>')).code).toBe(550);
    // Four errors: the next command is not answered, whatever it is.
    expect((await client.command('RCPT TO:<real@harvest.test>')).text).toBe(REPLIES.tooManyErrors('mx.harvest.test'));
    await client.closed;
    const log = host('mx.harvest.test').stats.sessions.at(-1)!;
    expect(log.errors).toBe(4);
    expect(log.replies.filter((r) => r.startsWith('421'))).toHaveLength(1);
  });

  it('harvest defence: the count belongs to the connection, and 452 too-many-recipients is not an error', async () => {
    const client = await ready('mx.harvest.test');
    const t = Date.now();
    expect((await client.command('RCPT TO:<x@harvest.test>')).code).toBe(550);
    expect(Date.now() - t).toBeLessThan(250);
    expect((await client.command('RCPT TO:<real@harvest.test>')).code).toBe(250);
    expect(host('mx.harvest.test').stats.sessions.at(-1)!.errors).toBe(1);
    const limited = await ready('mx.harvest452.test');
    expect((await limited.command('RCPT TO:<a@harvest452.test>')).code).toBe(250);
    expect((await limited.command('RCPT TO:<b@harvest452.test>')).text).toBe(REPLIES.tooManyRecipients);
    expect((await limited.command('RCPT TO:<c@harvest452.test>')).text).toBe(REPLIES.tooManyRecipients);
    expect((await limited.command('RSET')).text).toBe(REPLIES.ok);
  });

  it('blocks listed client IPs with 554 5.7.1 at RCPT and lets others through', async () => {
    const blocked = await ready('mx.listed.test', '127.0.0.1');
    expect((await blocked.command('RCPT TO:<user@listed.test>')).text).toBe(
      '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org',
    );
    const clean = await ready('mx.listed.test', '127.0.0.33');
    expect((await clean.command('RCPT TO:<user@listed.test>')).code).toBe(250);
  });

  it('can block at the greeting instead', async () => {
    const client = await connect('mx.blockall.test', '127.0.0.44');
    expect((await client.reply()).text).toBe('554 5.7.1 Service unavailable; Client host [127.0.0.44] blocked using zen.spamhaus.org');
    await client.closed;
  });

  it('tarpits: every reply, greeting included, waits at least the scripted time', async () => {
    const startedMs = Date.now();
    const client = await connect('mx.tarpit.test');
    await client.reply();
    const greetedMs = Date.now();
    await client.command('EHLO p.test');
    expect(greetedMs - startedMs).toBeGreaterThanOrEqual(295);
    expect(Date.now() - greetedMs).toBeGreaterThanOrEqual(295);
  });

  it('drops the connection right after the greeting', async () => {
    const client = await connect('mx.drop-greeting.test');
    expect((await client.reply()).code).toBe(220);
    await client.closed;
    expect(client.isOpen).toBe(false);
  });

  it.each([
    ['mx.drop-ehlo.test', 0],
    ['mx.drop-mail.test', 1],
    ['mx.drop-rcpt.test', 2],
  ])('%s drops abruptly when the scripted command arrives', async (name, answeredBefore) => {
    const client = await connect(name);
    await client.reply();
    const script = ['EHLO p.test', 'MAIL FROM:<a@b.test>', 'RCPT TO:<u@drop.test>'];
    for (const line of script.slice(0, answeredBefore)) expect((await client.command(line)).code).toBe(250);
    await expect(client.command(script[answeredBefore] ?? '')).rejects.toThrow(/closed/);
    const { error } = await client.closed;
    expect(error?.code ?? 'closed').toMatch(/ECONNRESET|closed/);
  });

  it('requires STARTTLS before MAIL, then works over TLS and forgets plaintext pipelined after STARTTLS', async () => {
    const client = await connect('mx.starttls.test');
    await client.reply();
    expect((await client.command('EHLO p.test')).lines).toContain('250-STARTTLS');
    expect((await client.command('MAIL FROM:<a@b.test>')).text).toBe('530 5.7.0 Must issue a STARTTLS command first');
    // The injected MAIL FROM must not survive the upgrade (RFC 3207 §4.2).
    client.writeRaw('STARTTLS\r\nMAIL FROM:<injected@evil.test>\r\n');
    expect((await client.reply()).text).toBe('220 2.0.0 Ready to start TLS');
    await client.startTls();
    const ehlo = await client.command('EHLO p.test');
    expect(ehlo.lines).not.toContain('250-STARTTLS');
    expect((await client.command('RCPT TO:<user@starttls.test>')).text).toBe(REPLIES.needMail);
    expect((await client.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    expect((await client.command('RCPT TO:<user@starttls.test>')).code).toBe(250);
    expect((await client.command('STARTTLS')).text).toBe(REPLIES.tlsActive);
    const log = host('mx.starttls.test').stats.sessions.at(-1);
    expect(log?.tls).toBe(true);
  });

  it('answers STARTTLS with 502 where it is not offered', async () => {
    const client = await connect('mx.catchall.test');
    await client.reply();
    expect((await client.command('EHLO p.test')).lines).not.toContain('250-STARTTLS');
    expect((await client.command('STARTTLS')).text).toBe(REPLIES.notImplemented);
  });

  it('temporaryFailure answers 451 4.3.0 to every RCPT, existing mailbox or not, session after session', async () => {
    for (let i = 0; i < 2; i++) {
      const c = await ready('mx.tempfail.test');
      expect((await c.command('RCPT TO:<user@tempfail.test>')).text).toBe(REPLIES.temporaryFailure('user@tempfail.test'));
      expect((await c.command('RCPT TO:<random@tempfail.test>')).text).toBe('451 4.3.0 <random@tempfail.test>: Temporary lookup failure');
    }
  });

  it('accept-all (Yahoo-like) and catch-all say 250 to any address; willNotVerify says 252', async () => {
    for (const name of ['mx.acceptall.test', 'mx.catchall.test']) {
      const client = await ready(name);
      expect((await client.command('RCPT TO:<no-such-user-8123@example.test>')).text).toBe('250 2.1.5 OK');
    }
    const noVerify = await ready('mx.noverify.test');
    expect((await noVerify.command('RCPT TO:<anyone@noverify.test>')).text).toBe('252 2.1.5 Cannot VRFY user, but will accept message');
  });

  it('advertises PIPELINING only when the behaviour allows it', async () => {
    const client = await connect('mx.nopipe.test');
    await client.reply();
    expect((await client.command('EHLO p.test')).lines).not.toContain('250-PIPELINING');
  });
});

describe('stats', () => {
  it('records every command line verbatim, bare LF included, per session and per host', async () => {
    const catchAll = host('mx.catchall.test');
    catchAll.reset();
    const client = await connect('mx.catchall.test');
    await client.reply();
    const lines = ['EHLO p.test', 'MAIL FROM:<a@b.test> SIZE=100', 'RCPT TO:<x@catchall.test>\nDATA', 'QUIT'];
    for (const line of lines) await client.command(line).catch(() => undefined);
    await client.closed;
    expect(catchAll.stats.commands).toEqual(lines);
    expect(catchAll.stats.sessions[0]?.commands).toEqual(lines);
    expect(catchAll.stats.sessions[0]?.replies[0]).toBe('220 mx.catchall.test ESMTP Postfix');
    // The smuggled DATA arrived inside an RCPT line: not a DATA command, and visible to an injection check.
    expect(catchAll.stats.dataCommands).toBe(0);
    expect(catchAll.stats.commands.some((line) => /[\r\n]/.test(line))).toBe(true);
  });

  it('records max concurrent sessions and sessions over the polite limit, refusing none', async () => {
    const normal = host('mx.normal.test');
    await until(() => normal.stats.sessionsCurrent === 0);
    normal.reset();
    const open = await Promise.all([0, 1, 2].map(() => connect('mx.normal.test')));
    for (const client of open) expect((await client.reply()).code).toBe(220);
    expect(normal.stats.sessionsCurrent).toBe(3);
    expect(normal.stats.maxConcurrentSessions).toBe(3);
    expect(normal.stats.concurrencyViolations).toBe(1);
    for (const client of open) client.end();
    await until(() => normal.stats.sessionsCurrent === 0);
    expect(normal.stats.sessionsTotal).toBe(3);
    expect(normal.stats.sessions.every((s) => s.endedAtMs !== undefined)).toBe(true);
  });
});
