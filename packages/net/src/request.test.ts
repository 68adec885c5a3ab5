import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pinnedLookup } from './pinned-lookup.ts';
import { checkTarget, type CheckedTarget } from './target.ts';
import { pinnedRequest, ResponseBodyError, type PinnedResponse } from './request.ts';
import type { Resolver } from './resolve.ts';

// The request to a vetted, pinned target, against real servers on loopback (reachable only with
// the tests' loopback permission). Two servers share one port on 127.0.0.1 and 127.0.0.2, so a
// request that went anywhere but the vetted address would show up on the other one.

interface Server {
  host: string;
  port: number;
  hits: Array<{ path: string; host: string | undefined; servername: string | null }>;
  respond: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

const ok204 = (_req: IncomingMessage, res: ServerResponse) => {
  res.statusCode = 204;
  res.end();
};

async function listen(host: string, port: number, tls?: { key: string; cert: string }): Promise<Server> {
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const servername = (req.socket as TLSSocket).servername;
    server.hits.push({ path: req.url ?? '', host: req.headers.host, servername: typeof servername === 'string' ? servername : null });
    req.resume();
    req.on('end', () => server.respond(req, res));
  };
  const raw = tls ? https.createServer(tls, handler) : http.createServer(handler);
  raw.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    raw.once('error', reject);
    raw.listen(port, host, () => resolve());
  });
  const server: Server = {
    host,
    port: (raw.address() as AddressInfo).port,
    hits: [],
    respond: ok204,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        raw.close(() => resolve());
      }),
  };
  return server;
}

async function vetted(url: string, resolve?: Resolver): Promise<CheckedTarget> {
  const t = await checkTarget(url, { allowHttpLoopback: true, ...(resolve ? { resolve } : {}) });
  if (!t.ok) throw new Error(`refused: ${t.detail}`);
  return t;
}

async function readAll(res: PinnedResponse): Promise<{ text: string; error: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of res.body) chunks.push(c as Buffer);
    return { text: Buffer.concat(chunks).toString(), error: null };
  } catch (error) {
    return { text: Buffer.concat(chunks).toString(), error };
  }
}

const GET = { method: 'GET', timeoutMs: 2_000, maxBodyBytes: 1024 };

let a: Server;
let b: Server;
beforeAll(async () => {
  a = await listen('127.0.0.1', 0);
  b = await listen('127.0.0.2', a.port);
});
afterAll(async () => Promise.all([a?.close(), b?.close()]));
afterEach(() => {
  for (const s of [a, b]) {
    s.hits.length = 0;
    s.respond = ok204;
  }
});

describe('pinnedRequest goes to the vetted address only', () => {
  it('a name that resolves first to the vetted address, then elsewhere (DNS rebinding), reaches only the first', async () => {
    const answers = ['127.0.0.1', '127.0.0.2'];
    let calls = 0;
    const resolve: Resolver = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const target = await vetted(`http://rebind.example.test:${a.port}/r`, resolve);
    for (let i = 0; i < 3; i++) expect(await pinnedRequest(target, GET)).toMatchObject({ ok: true, status: 204 });
    expect(calls).toBe(1);
    expect(a.hits).toHaveLength(3);
    expect(b.hits).toHaveLength(0);
    expect(a.hits[0]).toMatchObject({ path: '/r', host: `rebind.example.test:${a.port}` });
  });

  it('a public answer, then a private one: the private one is never used', async () => {
    const answers = ['93.184.216.34', '10.0.0.1'];
    let calls = 0;
    const resolve: Resolver = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const target = await checkTarget('https://rebind.example.com/list.csv', { resolve });
    expect(target).toMatchObject({ ok: true, addresses: [{ address: '93.184.216.34', family: 4 }] });
    if (!target.ok) return;
    // Whatever the socket asks, in whichever form, it gets the vetted address, and DNS is not asked again.
    const lookup = pinnedLookup(target);
    for (const options of [{}, { family: 4 }, { family: 6 }, { all: true }]) {
      lookup('rebind.example.com', options, (err, address) => {
        expect(err).toBeNull();
        const list = Array.isArray(address) ? address.map((x) => x.address) : [address];
        expect(list).toEqual(['93.184.216.34']);
      });
    }
    expect(calls).toBe(1);
    // A second check sees the private answer and refuses.
    expect(await checkTarget('https://rebind.example.com/list.csv', { resolve })).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });

  it('a redirect is never followed, to a private address or anywhere', async () => {
    a.respond = (_req, res) => {
      res.writeHead(302, { Location: `http://127.0.0.2:${b.port}/stolen` });
      res.end();
    };
    const r = await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/moved`), GET);
    expect(r).toMatchObject({ ok: true, status: 302 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(b.hits).toHaveLength(0);
    // And the place it points at would not pass the guard outside tests.
    expect(await checkTarget('https://10.0.0.1/stolen')).toMatchObject({ ok: false, reason: 'forbidden_address' });
    expect(await checkTarget(`http://127.0.0.2:${b.port}/stolen`)).toMatchObject({ ok: false, reason: 'scheme' });
  });
});

describe('pinnedRequest outcomes', () => {
  it('sends the method, headers and body, and returns the answer', async () => {
    let got = '';
    a.respond = (req, res) => {
      got = String(req.headers['content-length']);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`${req.method} ${req.headers['x-test']}`);
    };
    const r = await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/p`), { ...GET, method: 'POST', headers: { 'X-Test': 'yes', 'Content-Length': '5' }, body: 'hello' });
    expect(r).toMatchObject({ ok: true, status: 200 });
    if (r.ok) expect(await readAll(r)).toEqual({ text: 'POST yes', error: null });
    expect(got).toBe('5');
  });

  it('caps the body: the bytes up to the limit, then a too_large error', async () => {
    a.respond = (_req, res) => {
      res.writeHead(200);
      res.end('x'.repeat(5000));
    };
    const r = await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/big`), { ...GET, maxBodyBytes: 100 });
    if (!r.ok) throw new Error(r.detail);
    const { text, error } = await readAll(r);
    expect(text.length).toBeLessThanOrEqual(100);
    expect(error).toBeInstanceOf(ResponseBodyError);
    expect((error as ResponseBodyError).kind).toBe('too_large');
  });

  it('keeps a body error raised before the reader attached', async () => {
    a.respond = (_req, res) => {
      res.writeHead(200);
      res.end('x'.repeat(5000));
    };
    const r = await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/big`), { ...GET, maxBodyBytes: 100 });
    if (!r.ok) throw new Error(r.detail);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await readAll(r)).error).toBeInstanceOf(ResponseBodyError);
  });

  it('a connection that breaks mid-body fails the body as broken', async () => {
    a.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const r = await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/reset`), GET);
    if (!r.ok) throw new Error(r.detail);
    const { error } = await readAll(r);
    expect((error as ResponseBodyError).kind).toBe('broken');
  });

  it('times out a server that never answers', async () => {
    a.respond = () => undefined;
    const started = Date.now();
    expect(await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/slow`), { ...GET, timeoutMs: 200 })).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops waiting when the caller aborts', async () => {
    a.respond = () => undefined;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect(await pinnedRequest(await vetted(`http://127.0.0.1:${a.port}/slow`), { ...GET, signal: ac.signal })).toMatchObject({ ok: false, reason: 'aborted' });
  });

  it('reports a refused connection as a network failure with its code', async () => {
    const gone = await listen('127.0.0.1', 0);
    const target = await vetted(`http://127.0.0.1:${gone.port}/`);
    await gone.close();
    expect(await pinnedRequest(target, GET)).toMatchObject({ ok: false, reason: 'network', code: 'ECONNREFUSED' });
  });
});

describe('pinnedRequest over TLS', () => {
  it('keeps the name in Host and SNI, and checks the certificate against it', async () => {
    const { default: selfsigned } = await import('selfsigned');
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'hooks.example.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'hooks.example.test' }] }],
    });
    const secure = await listen('127.0.0.1', 0, { key: pems.private, cert: pems.cert });
    try {
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const good = await vetted(`https://hooks.example.test:${secure.port}/tls`, resolve);
      expect(await pinnedRequest(good, { ...GET, ca: pems.cert })).toMatchObject({ ok: true, status: 204 });
      expect(secure.hits[0]).toMatchObject({ servername: 'hooks.example.test', host: `hooks.example.test:${secure.port}`, path: '/tls' });
      const wrong = await vetted(`https://other.example.test:${secure.port}/tls`, resolve);
      expect(await pinnedRequest(wrong, { ...GET, ca: pems.cert })).toMatchObject({ ok: false, reason: 'network' });
      expect(await pinnedRequest(good, GET)).toMatchObject({ ok: false, reason: 'network' });
    } finally {
      await secure.close();
    }
  });
});
