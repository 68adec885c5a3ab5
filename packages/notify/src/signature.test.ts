import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDownloadSignature, downloadScope, parseSignatureHeader, signDownloadUrl, signWebhook, verifyDownloadSignature, verifyWebhookSignature } from './signature.ts';

const SECRET = 'whsec_test_0123456789abcdef';
const BODY = '{"id":"evt_1","type":"job.completed","data":{"job_id":"job_1","note":"héllo"}}';
const NOW = 1_763_773_323;

describe('signWebhook', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">', () => {
    const want = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
    expect(signWebhook(SECRET, BODY, NOW)).toBe(`t=${NOW},v1=${want}`);
    expect(signWebhook(SECRET, Buffer.from(BODY), NOW)).toBe(`t=${NOW},v1=${want}`);
  });
});

describe('verifyWebhookSignature', () => {
  const good = signWebhook(SECRET, BODY, NOW);
  const v1 = good.split('v1=')[1]!;
  const cases: Array<[string, string | null, string, string, number, boolean]> = [
    ['valid', good, BODY, SECRET, NOW, true],
    ['valid, 299 s later', good, BODY, SECRET, NOW + 299, true],
    ['valid, 300 s later (edge)', good, BODY, SECRET, NOW + 300, true],
    ['too old', good, BODY, SECRET, NOW + 301, false],
    ['from the future', good, BODY, SECRET, NOW - 301, false],
    ['body changed', good, BODY.replace('job_1', 'job_2'), SECRET, NOW, false],
    ['body re-serialized', good, JSON.stringify(JSON.parse(BODY), null, 2), SECRET, NOW, false],
    ['wrong secret', good, BODY, 'other', NOW, false],
    ['timestamp swapped', `t=${NOW + 1},v1=${v1}`, BODY, SECRET, NOW, false],
    ['second v1 matches (rotation)', `t=${NOW},v1=${'0'.repeat(64)},v1=${v1}`, BODY, SECRET, NOW, true],
    ['spaces around parts', `t=${NOW}, v1=${v1}`, BODY, SECRET, NOW, true],
    ['unknown scheme ignored', `t=${NOW},v0=abc,v1=${v1}`, BODY, SECRET, NOW, true],
    ['no v1', `t=${NOW}`, BODY, SECRET, NOW, false],
    ['no t', `v1=${v1}`, BODY, SECRET, NOW, false],
    ['short hex', `t=${NOW},v1=${v1.slice(2)}`, BODY, SECRET, NOW, false],
    ['uppercase hex', `t=${NOW},v1=${v1.toUpperCase()}`, BODY, SECRET, NOW, false],
    ['empty', '', BODY, SECRET, NOW, false],
    ['missing', null, BODY, SECRET, NOW, false],
  ];
  it.each(cases)('%s', (_name, header, body, secret, nowS, ok) => {
    expect(verifyWebhookSignature(header, body, secret, { nowS })).toBe(ok);
  });

  it('honours a custom tolerance', () => {
    expect(verifyWebhookSignature(good, BODY, SECRET, { nowS: NOW + 30, toleranceS: 10 })).toBe(false);
    expect(verifyWebhookSignature(good, BODY, SECRET, { nowS: NOW + 30, toleranceS: 60 })).toBe(true);
  });

  it('parses the header', () => {
    expect(parseSignatureHeader(good)).toEqual({ t: NOW, v1: [v1] });
    expect(parseSignatureHeader('garbage')).toBeNull();
  });
});

// The receiver-side recipes exactly as docs/notify.md prints them: extracted from the document and
// run, so the documentation cannot drift from what the platform sends.
const DOCS = readFileSync(new URL('../../../docs/notify.md', import.meta.url), 'utf8');
function recipe(kind: 'node' | 'python'): string {
  const fence = kind === 'node' ? 'js' : 'python';
  const m = new RegExp(`<!-- recipe:${kind} -->\\n\`\`\`${fence}\\n([\\s\\S]*?)\\n\`\`\``).exec(DOCS);
  if (!m) throw new Error(`docs/notify.md has no ${kind} recipe`);
  return m[1]!;
}
const dir = mkdtempSync(join(tmpdir(), 'notify-recipes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('documented recipes', () => {
  it('Node recipe, literally as documented, verifies what signWebhook produces', async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, recipe('node'));
    const { verifyWebhook } = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
      verifyWebhook: (h: string | undefined, body: string | Buffer, secret: string, tol?: number) => boolean;
    };
    const now = Math.floor(Date.now() / 1000);
    const header = signWebhook(SECRET, BODY, now);
    expect(verifyWebhook(header, Buffer.from(BODY), SECRET)).toBe(true);
    expect(verifyWebhook(header, BODY, SECRET)).toBe(true);
    expect(verifyWebhook(header, BODY + ' ', SECRET)).toBe(false);
    expect(verifyWebhook(header, BODY, 'wrong')).toBe(false);
    expect(verifyWebhook(signWebhook(SECRET, BODY, now - 3600), BODY, SECRET)).toBe(false);
    expect(verifyWebhook(undefined, BODY, SECRET)).toBe(false);
  });

  const hasPython = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!hasPython)('Python recipe, literally as documented, verifies what signWebhook produces', () => {
    const file = join(dir, 'verify.py');
    const driver = [
      recipe('python'),
      '',
      'import sys',
      'body = open(sys.argv[2], "rb").read()',
      'print("ok" if verify_webhook(sys.argv[1], body, sys.argv[3]) else "refused")',
    ].join('\n');
    writeFileSync(file, driver);
    const bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, BODY);
    const now = Math.floor(Date.now() / 1000);
    const run = (header: string, secret: string) => execFileSync('python3', [file, header, bodyFile, secret], { encoding: 'utf8' }).trim();
    expect(run(signWebhook(SECRET, BODY, now), SECRET)).toBe('ok');
    expect(run(signWebhook(SECRET, BODY, now), 'wrong')).toBe('refused');
    expect(run(signWebhook(SECRET, BODY + 'x', now), SECRET)).toBe('refused');
    expect(run(signWebhook(SECRET, BODY, now - 3600), SECRET)).toBe('refused');
  });
});

describe('download links', () => {
  const secret = 'download-secret-0123456789abcdef-0123';
  const url = signDownloadUrl('https://api.example.com/', 'job_01ABC', secret, NOW + 60);
  const u = new URL(url);
  const exp = u.searchParams.get('exp')!;
  const sig = u.searchParams.get('sig')!;

  it('has the gateway route and HMAC-SHA256 hex over "<job_id>.<exp>"', () => {
    expect(u.origin + u.pathname).toBe('https://api.example.com/v1/downloads/job_01ABC.csv');
    expect(exp).toBe(String(NOW + 60));
    expect(sig).toBe(createHmac('sha256', secret).update(`job_01ABC.${NOW + 60}`).digest('hex'));
  });

  const cases: Array<[string, string, string, string, string, number, ReturnType<typeof checkDownloadSignature>]> = [
    ['valid', 'job_01ABC', exp, sig, secret, NOW, 'ok'],
    ['valid at the expiry second', 'job_01ABC', exp, sig, secret, NOW + 60, 'ok'],
    ['expired', 'job_01ABC', exp, sig, secret, NOW + 61, 'expired'],
    ['other job', 'job_01ABD', exp, sig, secret, NOW, 'bad_signature'],
    ['exp extended', 'job_01ABC', String(NOW + 6000), sig, secret, NOW, 'bad_signature'],
    ['wrong secret', 'job_01ABC', exp, sig, 'x'.repeat(40), NOW, 'bad_signature'],
    ['empty', 'job_01ABC', '', '', secret, NOW, 'bad_signature'],
    ['non-numeric exp', 'job_01ABC', '1e10', sig, secret, NOW, 'bad_signature'],
  ];
  it.each(cases)('%s', (_n, job, e, s, sec, now, want) => {
    expect(checkDownloadSignature(job, e, s, sec, now)).toBe(want);
    expect(verifyDownloadSignature(job, e, s, sec, now)).toBe(want === 'ok');
  });

  it('a link to part of the results signs its format and filter: it opens only that part', () => {
    const part = new URL(signDownloadUrl('https://api.example.com', 'job_01ABC', secret, NOW + 60, { decision: 'send' }));
    expect(part.pathname).toBe('/v1/downloads/job_01ABC.csv');
    expect(part.searchParams.get('decision')).toBe('send');
    const partSig = part.searchParams.get('sig')!;
    expect(partSig).toBe(createHmac('sha256', secret).update(`job_01ABC.${NOW + 60}.csv;decision=send`).digest('hex'));
    expect(checkDownloadSignature('job_01ABC', exp, partSig, secret, NOW, downloadScope({ decision: 'send' }))).toBe('ok');
    // The part's signature opens neither the whole file, another part, nor NDJSON; the whole file's opens no part.
    expect(checkDownloadSignature('job_01ABC', exp, partSig, secret, NOW)).toBe('bad_signature');
    expect(checkDownloadSignature('job_01ABC', exp, partSig, secret, NOW, downloadScope({ decision: 'drop' }))).toBe('bad_signature');
    expect(checkDownloadSignature('job_01ABC', exp, partSig, secret, NOW, downloadScope({ format: 'ndjson', decision: 'send' }))).toBe('bad_signature');
    expect(checkDownloadSignature('job_01ABC', exp, sig, secret, NOW, downloadScope({ status: 'risky' }))).toBe('bad_signature');
    const nd = new URL(signDownloadUrl('https://api.example.com', 'job_01ABC', secret, NOW + 60, { format: 'ndjson', status: 'risky' }));
    expect(nd.pathname).toBe('/v1/downloads/job_01ABC.ndjson');
    expect(downloadScope({ format: 'ndjson', status: 'risky' })).toBe('ndjson;status=risky');
    expect(downloadScope({ format: 'csv' })).toBe('');
  });
});
