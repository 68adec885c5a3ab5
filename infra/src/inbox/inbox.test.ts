// The launcher's mail catcher and webhook receiver, for real: nodemailer sends through the catcher,
// @dv/notify's deliverOnce posts to the receiver over TLS checked against the local CA, and the
// inbox reads back what both kept.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { checkTarget, deliverOnce, signWebhook, type CheckedTarget } from '@dv/notify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caBundleFile, ensureLocalCa, loopbackServerCert, type LocalCa } from '../local-ca.ts';
import { startMailCatcher, type MailCatcher } from '../mail-catcher.ts';
import { judgeDelivery, startWebhookReceiver, WEBHOOK_RECEIVER_MAX_BYTES, type WebhookReceiver } from '../webhook-receiver.ts';
import { formatInbox } from './format.ts';
import { extractLinks, readEntries } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'dv-inbox-'));
const inboxDir = join(dir, 'inbox');
const SECRET = 'whsec_inbox_test';
let ca: LocalCa;
let catcher: MailCatcher;
let receiver: WebhookReceiver;

beforeAll(async () => {
  ca = await ensureLocalCa(join(dir, 'ca'));
  catcher = await startMailCatcher({ inboxDir });
  receiver = await startWebhookReceiver({ inboxDir, tls: await loopbackServerCert(ca), secretFor: async (id) => (id === 'acc_1' ? SECRET : null) });
});
afterAll(async () => {
  await Promise.all([catcher?.stop(), receiver?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function vetted(url: string): Promise<CheckedTarget> {
  const t = await checkTarget(url, { allowHttpLoopback: true });
  if (!t.ok) throw new Error(`refused: ${t.detail}`);
  return t;
}

describe('local CA', () => {
  it('is made once and kept: a second start reuses it, the key is private', async () => {
    const again = await ensureLocalCa(join(dir, 'ca'));
    expect(again.cert).toBe(ca.cert);
    expect(statSync(join(dir, 'ca', 'ca.key')).mode & 0o077).toBe(0);
  });

  it('bundles the user\'s own extra CAs with it rather than dropping them', () => {
    expect(caBundleFile(join(dir, 'ca'), ca, undefined)).toBe(ca.certFile);
    const bundle = caBundleFile(join(dir, 'ca'), ca, ca.certFile);
    expect(readFileSync(bundle, 'utf8').match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });
});

describe('mail catcher', () => {
  it('keeps every message with its subject, text and links (quoted-printable undone)', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(new URL(catcher.url).port), secure: false });
    const link = `http://127.0.0.1:18081/v1/keys/verify?token=${'x'.repeat(90)}`;
    await transport.sendMail({ from: 'no-reply@localhost', to: 'you@example.com', subject: 'Confirm your email ✓', text: `Open this:\n${link}\n\nThanks.`, html: `<a href="${link}&amp;a=1">open</a>` });
    transport.close();
    const [mail] = readEntries(inboxDir, 'mail');
    expect(mail).toMatchObject({ rcpt_to: ['you@example.com'], subject: 'Confirm your email ✓' });
    expect(mail!.links).toEqual([link, `${link}&a=1`]);
    expect(readFileSync(join(inboxDir, 'mail', mail!.raw_file), 'utf8')).toContain('Subject:');
  });

  it('outlives a client that resets the connection mid-message', async () => {
    const { port } = new URL(catcher.url);
    const banner = (socket: Socket) => new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
    const rude = connect(Number(port), '127.0.0.1');
    rude.on('error', () => undefined);
    await banner(rude);
    // One SMTP reply: lines up to the one whose code is followed by a space.
    const reply = () =>
      new Promise<string>((resolve) => {
        let buf = '';
        const on = (d: Buffer) => {
          buf += d.toString();
          if (/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buf)) {
            rude.off('data', on);
            resolve(buf);
          }
        };
        rude.on('data', on);
      });
    for (const line of ['EHLO rude.example', 'MAIL FROM:<a@rude.example>', 'RCPT TO:<b@example.com>', 'DATA']) {
      const answered = reply();
      rude.write(`${line}\r\n`);
      expect(await answered, line).toMatch(/^[23]\d\d/);
    }
    rude.write('Subject: half\r\n\r\nhalf a mess');
    await new Promise((r) => setTimeout(r, 50));
    rude.resetAndDestroy();
    await new Promise((r) => setTimeout(r, 200));
    const next = connect(Number(port), '127.0.0.1');
    expect(await banner(next)).toMatch(/^220 /);
    next.destroy();
  });
});

describe('webhook receiver', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'job.completed', data: { job_id: 'job_1' } });

  it('takes a delivery over TLS verified against the local CA and checks its signature', async () => {
    const r = await deliverOnce(await vetted(receiver.urlFor('acc_1')), body, SECRET, { ca: ca.cert });
    expect(r).toMatchObject({ delivered: true, status: 204 });
    const wrong = await deliverOnce(await vetted(receiver.urlFor('acc_1')), body, 'whsec_someone_else', { ca: ca.cert });
    expect(wrong).toMatchObject({ delivered: false, status: 400 });
    const unknown = await deliverOnce(await vetted(receiver.urlFor('acc_nobody')), body, SECRET, { ca: ca.cert });
    expect(unknown).toMatchObject({ delivered: false, status: 400 });
    const kept = readEntries(inboxDir, 'webhook');
    expect(kept.map((d) => [d.account_id, d.signature, d.event_id, d.job_id])).toEqual([
      ['acc_1', 'valid', 'evt_1', 'job_1'],
      ['acc_1', 'invalid', 'evt_1', 'job_1'],
      ['acc_nobody', 'unknown_account', 'evt_1', 'job_1'],
    ]);
  });

  it('is refused by a client that does not trust the local CA', async () => {
    const r = await deliverOnce(await vetted(receiver.urlFor('acc_1')), body, SECRET);
    expect(r.delivered).toBe(false);
    expect(r.error).toMatch(/certificate|self.signed|issuer/i);
  });

  it('answers 404 off its path and 413 to a body larger than any webhook, keeping neither', async () => {
    const before = readEntries(inboxDir, 'webhook').length;
    const agent = new Agent({ ca: ca.cert });
    const post = (path: string, body: Buffer | string, method = 'POST') =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${receiver.url}${path}`, { method, agent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await post('/other', body)).toBe(404);
    expect(await post('/hooks/acc_1', '', 'GET')).toBe(404);
    expect(await post('/hooks/acc_1', Buffer.alloc(WEBHOOK_RECEIVER_MAX_BYTES + 1, 'x'))).toBe(413);
    agent.destroy();
    expect(readEntries(inboxDir, 'webhook')).toHaveLength(before);
  });

  it('judges replays, missing headers and foreign bodies (pure)', () => {
    const now = new Date();
    const old = signWebhook(SECRET, body, Math.floor(now.getTime() / 1000) - 3_600);
    expect(judgeDelivery('/hooks/acc_1', old, Buffer.from(body), SECRET, now)).toMatchObject({ signature: 'invalid', answered: 400 });
    expect(judgeDelivery('/hooks/acc_1', null, Buffer.from(body), SECRET, now)).toMatchObject({ signature: 'missing', answered: 400 });
    const fresh = signWebhook(SECRET, 'not json');
    expect(judgeDelivery('/hooks/acc_1?x=1', fresh, Buffer.from('not json'), SECRET, now)).toMatchObject({ account_id: 'acc_1', signature: 'valid', event_type: null });
    // A path that does not percent-decode names no account: an answer, not a throw.
    expect(judgeDelivery('/hooks/%E0', fresh, Buffer.from('not json'), null, now)).toMatchObject({ account_id: '%E0', signature: 'unknown_account', answered: 400 });
  });
});

describe('inbox listing', () => {
  it('lists mails with their links and deliveries with their signature check', () => {
    const text = formatInbox(readEntries(inboxDir, 'mail'), readEntries(inboxDir, 'webhook'));
    expect(text).toMatch(/Mails \(1\):\n.*to you@example.com {2}"Confirm your email ✓"\n {6}http:\/\/127\.0\.0\.1:18081\/v1\/keys\/verify\?token=x+\n/);
    expect(text).toMatch(/\/hooks\/acc_1 {2}job\.completed evt_1 job job_1 {2}signature valid {2}\(answered 204\)/);
    expect(text).toMatch(/signature INVALID/);
    expect(formatInbox([], [])).toBe('Mails (0):\n  none yet\n\nWebhook deliveries (0):\n  none yet');
  });

  it('finds links without trailing punctuation, once each', () => {
    expect(extractLinks('see https://a.example/x. and (https://b.example/y) https://a.example/x')).toEqual(['https://a.example/x', 'https://b.example/y']);
  });
});
