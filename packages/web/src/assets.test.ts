import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAssets, type Assets } from './assets.ts';
import { WEB_ASSETS_DIR } from './index.ts';

let dir: string;
let assets: Assets;
let url: string;
let server: ReturnType<ReturnType<typeof express>['listen']>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dv-assets-'));
  writeFileSync(join(dir, 'app.js'), 'export const x = 1;\n'.repeat(50));
  writeFileSync(join(dir, 'base.css'), 'body { color: red }\n'); // overrides the shared one
  assets = loadAssets([WEB_ASSETS_DIR, dir]);
  const app = express();
  app.use(assets.handler);
  app.use((_req, res) => void res.status(418).send('fell through'));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hashed assets', () => {
  it('names each file by its content and serves it for a year, compressed when asked', async () => {
    const js = assets.url('app.js');
    expect(js).toMatch(/^\/assets\/app\.[0-9a-f]{10}\.js$/);
    expect(assets.url('enhance.js')).toMatch(/^\/assets\/enhance\.[0-9a-f]{10}\.js$/);
    const plain = await fetch(url + js, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await plain.text()).toBe('export const x = 1;\n'.repeat(50));
    const gz = await fetch(url + js, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe('export const x = 1;\n'.repeat(50));
    const again = await fetch(url + js, { headers: { 'if-none-match': plain.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('lets a later directory replace a shared file, and serves only the replacement', async () => {
    expect(await (await fetch(url + assets.url('base.css'))).text()).toBe('body { color: red }\n');
    const shared = loadAssets([WEB_ASSETS_DIR]).url('base.css');
    expect(shared).not.toBe(assets.url('base.css'));
    expect((await fetch(url + shared)).status).toBe(404);
  });

  it('answers 404 for an old hash, an unknown name or a path that tries to leave, and passes other paths on', async () => {
    for (const path of ['/assets/app.0000000000.js', '/assets/app.js', '/assets/..%2f..%2fetc%2fpasswd']) {
      expect((await fetch(url + path)).status, path).toBe(404);
    }
    expect((await fetch(`${url}/other`)).status).toBe(418);
    expect(() => assets.url('missing.js')).toThrow(/no asset named/);
  });
});
