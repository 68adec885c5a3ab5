import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { applySchema } from '@dv/stack';
import { stackSecretsEnv, startServiceProcess, type ServiceName } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';
import { isolatedMongo } from '@dv/runtime/testing';
import { stackEnv } from '@dv/test-kit';

// Each service started as `node <service>/src/main.ts` with NODE_ENV=production and the unsafe
// settings it declares: it must exit 78 before connecting to anything, with one message naming every
// offending variable. Then the same processes start when the settings are safe.

const PUBLISHED_KEY = 'development-only-download-signing-secret-not-for-production';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// A clean environment: nothing from the developer's shell (a DOWNLOAD_SIGNING_SECRET there, say) leaks in.
const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' };

async function refusal(service: ServiceName, vars: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const run = promisify(execFile);
  return run(process.execPath, [join(REPO_ROOT, service, 'src', 'main.ts')], { env: { ...base, ...vars }, timeout: 20_000 }).then(
    (ok) => ({ code: 0, stderr: ok.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
}

const CASES: Array<[ServiceName, Record<string, string>, string[]]> = [
  [
    'gateway',
    { MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: 'true', WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true', BEHIND_PROXY: 'true' },
    // PUBLIC_BASE_URL's default is loopback; no signing secret at all.
    ['PUBLIC_BASE_URL', 'DOWNLOAD_SIGNING_SECRET', 'MCP_LIST_URL_ALLOW_HTTP_LOOPBACK', 'WEBHOOK_ALLOW_HTTP_LOOPBACK', 'TRUSTED_PROXIES', 'NATS_USER'],
  ],
  ['lookup', { ALLOW_PRIVATE_TARGETS: 'yes', TRUSTED_PROXIES: '0.0.0.0/0' }, ['PUBLIC_BASE_URL', 'ALLOW_PRIVATE_TARGETS', 'TRUSTED_PROXIES', 'WEB_SECRET']],
  // probe.localhost (HELO) and verify@probe.localhost (MAIL FROM) are the defaults.
  ['probe-node', { BEHIND_PROXY: '1', PROBE_ALLOW_PRIVATE_MX: 'true' }, ['PROBE_HELO_NAME', 'PROBE_MAIL_FROM', 'PROBE_ALLOW_PRIVATE_MX', 'TRUSTED_PROXIES', 'NATS_USER']],
  [
    'scheduler',
    { PUBLIC_BASE_URL: 'http://localhost:8080', DOWNLOAD_SIGNING_SECRET: PUBLISHED_KEY, WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true', SMTP_RELAY_URL: 'smtp://relay.example.com:587' },
    ['PUBLIC_BASE_URL', 'DOWNLOAD_SIGNING_SECRET', 'PROBE_MAIL_FROM', 'WEBHOOK_ALLOW_HTTP_LOOPBACK', 'MAIL_FROM', 'NATS_USER'],
  ],
  // A password in NATS_URL is in the environment; the bus user comes with NATS_PASSWORD_FILE.
  // PUBLIC_BASE_URL's default is loopback (the connector's OAuth issuer); no export-link key at all.
  ['portfolio-scanner', { BEHIND_PROXY: 'true', NATS_URL: 'nats://portfolio-scanner:secret@nats:4222' }, ['TRUSTED_PROXIES', 'NATS_USER', 'NATS_URL', 'PUBLIC_BASE_URL', 'PORTFOLIO_EXPORT_SIGNING_SECRET']],
];

describe('NODE_ENV=production refuses unsafe settings', () => {
  it.each(CASES)('%s exits 78 naming every unsafe variable', async (service, vars, names) => {
    const { code, stderr } = await refusal(service, vars);
    expect(code).toBe(78);
    expect(stderr.match(/invalid configuration for NODE_ENV=production/g)).toHaveLength(1);
    const named = [...stderr.matchAll(/^ {2}- ([A-Z_]+):/gm)].map((m) => m[1]);
    expect(named.sort()).toEqual([...names].sort());
    expect(stderr).not.toContain(PUBLISHED_KEY);
  });

  it('probe-node starts in production once its names are real', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'dv-prod-'));
    dirs.push(logDir);
    const proc = await startServiceProcess('probe-node', {
      env: { ...base, NATS_URL: stackEnv().NATS_URL!, NATS_USERS_DIR: stackEnv().NATS_USERS_DIR!, PROBE_HELO_NAME: 'probe1.example.com', PROBE_MAIL_FROM: 'verify@example.com', BEHIND_PROXY: 'true', TRUSTED_PROXIES: '10.0.0.0/8', LOG_LEVEL: 'warn' },
      logDir,
    });
    expect(await proc.stop(10_000)).toBe(0);
  }, 60_000);

  it("the gateway starts in production with the launcher's per-stack key file, which is private and survives a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dv-prod-stack-'));
    dirs.push(dataDir);
    const secrets = stackSecretsEnv(dataDir, {});
    const file = secrets.DOWNLOAD_SIGNING_SECRET_FILE!;
    const key = readFileSync(file, 'utf8');
    expect(key.trim().length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(stackSecretsEnv(dataDir, {})).toEqual(secrets);
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(stackSecretsEnv(mkdtempSync(join(tmpdir(), 'dv-prod-other-')), {}).DOWNLOAD_SIGNING_SECRET_FILE).not.toBe(file);
    // A key the user set wins; the launcher adds no file for it (setting both would be refused).
    expect(stackSecretsEnv(dataDir, { DOWNLOAD_SIGNING_SECRET: 'x'.repeat(40) })).not.toHaveProperty('DOWNLOAD_SIGNING_SECRET_FILE');
    // The portfolio API's export-link key is kept the same way.
    const exportFile = secrets.PORTFOLIO_EXPORT_SIGNING_SECRET_FILE!;
    expect(readFileSync(exportFile, 'utf8').trim().length).toBeGreaterThanOrEqual(32);
    expect(statSync(exportFile).mode & 0o077).toBe(0);
    expect(stackSecretsEnv(dataDir, { PORTFOLIO_EXPORT_SIGNING_SECRET_FILE: '/run/secrets/x' })).toEqual({ DOWNLOAD_SIGNING_SECRET_FILE: file });

    const mongo = await isolatedMongo('prod');
    try {
      await applySchema(mongo.db);
      const s = stackEnv();
      const proc = await startServiceProcess('gateway', {
        env: { ...base, ...secrets, NATS_URL: s.NATS_URL!, NATS_USERS_DIR: s.NATS_USERS_DIR!, REDIS_URL: s.REDIS_URL!, MONGODB_URL: s.MONGODB_URL!, MONGODB_DB: mongo.db.databaseName, PUBLIC_BASE_URL: 'https://api.example.com', LOG_LEVEL: 'warn' },
        logDir: join(dataDir, 'logs'),
      });
      expect(await proc.stop(10_000)).toBe(0);
    } finally {
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
    }
  }, 90_000);
});
