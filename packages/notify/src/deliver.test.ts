import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliverOnce } from './deliver.ts';
import { verifyWebhookSignature } from './signature.ts';
import { checkTarget, type CheckedTarget, type Resolver } from './target.ts';
import { startReceiver, testCertificate, type Receiver } from './testing/receiver.ts';

// deliverOnce against real receivers on loopback (reachable only because of allowHttpLoopback).

const SECRET = 'whsec_deliver_test';
const BODY = JSON.stringify({ id: 'evt_1', type: 'job.completed', data: { job_id: 'job_1' } });

async function vetted(url: string, resolve?: Resolver): Promise<CheckedTarget> {
  const t = await checkTarget(url, { allowHttpLoopback: true, resolve });
  if (!t.ok) throw new Error(`target refused: ${t.detail}`);
  return t;
}

let plain: Receiver;
let other: Receiver;
let secure: Receiver;
let cert: { key: string; cert: string };

beforeAll(async () => {
  cert = await testCertificate(['hooks.example.test']);
  [plain, other, secure] = await Promise.all([startReceiver(), startReceiver(), startReceiver({ tls: cert })]);
});
afterAll(async () => {
  await Promise.all([plain?.close(), other?.close(), secure?.close()]);
});
beforeEach(() => {
  for (const r of [plain, other, secure]) {
    r.received.length = 0;
    r.respond = (_req, res) => {
      res.statusCode = 204;
      res.end();
    };
  }
});

describe('deliverOnce', () => {
  it('POSTs the exact body, signed, with the documented headers', async () => {
    const r = await deliverOnce(await vetted(plain.url('/in?team=7')), BODY, SECRET);
    expect(r).toMatchObject({ delivered: true, outcome: 'delivered', status: 204, error: null });
    const got = plain.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/in?team=7');
    expect(got.body).toBe(BODY);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^dv-webhooks\//);
    expect(verifyWebhookSignature(got.headers['x-verify-signature'] as string, got.body, SECRET)).toBe(true);
  });

  it('speaks TLS to the vetted address with the name in Host and SNI, and checks the certificate', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const target = await vetted(`https://hooks.example.test:${secure.port}/tls`, resolve);
    const r = await deliverOnce(target, BODY, SECRET, { ca: cert.cert });
    expect(r).toMatchObject({ delivered: true, status: 204 });
    expect(secure.received[0]).toMatchObject({ servername: 'hooks.example.test', path: '/tls' });
    expect(secure.received[0]!.headers.host).toBe(`hooks.example.test:${secure.port}`);

    // Same receiver under a name its certificate does not cover: refused by TLS verification.
    const wrong = await vetted(`https://other.example.test:${secure.port}/tls`, resolve);
    const bad = await deliverOnce(wrong, BODY, SECRET, { ca: cert.cert });
    expect(bad).toMatchObject({ delivered: false, outcome: 'network' });
    expect(bad.error).toMatch(/altname|certificate|Hostname/i);
    // And without trusting the test CA at all.
    expect(await deliverOnce(target, BODY, SECRET)).toMatchObject({ delivered: false, outcome: 'network' });
  });

  it('connects to the vetted address even when DNS would now answer differently (rebinding)', async () => {
    const answers = ['127.0.0.1', '10.0.0.1'];
    let calls = 0;
    const resolve: Resolver = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const target = await vetted(`http://rebind.example.test:${plain.port}/r`, resolve);
    const r = await deliverOnce(target, BODY, SECRET);
    expect(r.delivered).toBe(true);
    expect(calls).toBe(1);
    expect(plain.received[0]!.headers.host).toBe(`rebind.example.test:${plain.port}`);
  });

  it('does not follow redirects', async () => {
    plain.respond = (_req, res) => {
      res.writeHead(302, { Location: other.url('/stolen') });
      res.end();
    };
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET);
    expect(r).toMatchObject({ delivered: false, outcome: 'redirect', status: 302 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(other.received).toHaveLength(0);
  });

  it('reports a non-2xx status with the start of the body', async () => {
    plain.respond = (_req, res) => {
      res.statusCode = 503;
      res.end('maintenance\r\nback soon');
    };
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET);
    expect(r).toMatchObject({ delivered: false, outcome: 'http_status', status: 503, error: 'HTTP 503: maintenance back soon' });
  });

  it('times out a receiver that never answers', async () => {
    plain.respond = () => undefined;
    const started = Date.now();
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET, { timeoutMs: 300 });
    expect(r).toMatchObject({ delivered: false, outcome: 'timeout', status: null });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reads at most 64 KB of a huge response, then hangs up', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    plain.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      // 4 MB, written as fast as the socket takes it: the client must stop reading early.
      let left = 64;
      const pump = () => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    };
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET);
    expect(r).toMatchObject({ delivered: true, status: 200, responseBytes: 64 * 1024, truncated: true });
  });

  it('counts a 2xx whose body never ends as delivered once the deadline passes', async () => {
    plain.respond = (_req, res) => {
      res.writeHead(200);
      res.write('partial');
    };
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET, { timeoutMs: 300 });
    expect(r).toMatchObject({ delivered: true, status: 200, truncated: true });
  });

  it('never sends a header value with CR/LF', async () => {
    const r = await deliverOnce(await vetted(plain.url()), BODY, SECRET, { headers: { 'X-Trace': 'a\r\nX-Injected: 1' } });
    expect(r).toMatchObject({ delivered: false, outcome: 'refused' });
    expect(plain.received).toHaveLength(0);
  });

  it('reports a refused connection as a network failure', async () => {
    const gone = await startReceiver();
    const target = await vetted(gone.url());
    await gone.close();
    const r = await deliverOnce(target, BODY, SECRET, { timeoutMs: 2_000 });
    expect(r).toMatchObject({ delivered: false, outcome: 'network', status: null });
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
