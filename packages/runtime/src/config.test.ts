import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, loadConfig, serviceSchema } from './config.ts';

const schema = z.object({
  ...serviceSchema(8080),
  DNS_SERVERS: env.hostPorts(),
  API_SECRET: z.string().min(16),
  FEATURE: env.bool(false),
});

function problemsOf(vars: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig('svc', schema, vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults and coerces types', () => {
    const cfg = loadConfig('svc', schema, { API_SECRET: 'x'.repeat(16), PORT: '9000', FEATURE: 'yes', DNS_SERVERS: '127.0.0.1:5353, ::1' });
    expect(cfg.PORT).toBe(9000);
    expect(cfg.FEATURE).toBe(true);
    expect(cfg.DNS_SERVERS).toEqual(['127.0.0.1:5353', '::1']);
    expect(cfg.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(cfg.LOG_LEVEL).toBe('info');
  });

  it('lists every bad variable in one error, not just the first', () => {
    const problems = problemsOf({ PORT: 'eighty', NATS_URL: 'http://x', LOG_LEVEL: 'loud', DNS_SERVERS: 'bad host!', FEATURE: 'maybe' });
    const names = problems.map((p) => p.split(':')[0]);
    expect(names).toEqual(expect.arrayContaining(['PORT', 'NATS_URL', 'LOG_LEVEL', 'DNS_SERVERS', 'FEATURE', 'API_SECRET']));
    expect(problems.find((p) => p.startsWith('API_SECRET'))).toContain('not set');
    expect(problems.find((p) => p.startsWith('PORT'))).toContain('"eighty"');
  });

  it('reads NAME_FILE secrets and never echoes secret values in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'secret'), 'a-long-enough-secret-value\n');
    expect(loadConfig('svc', schema, { API_SECRET_FILE: join(dir, 'secret') }).API_SECRET).toBe('a-long-enough-secret-value');
    writeFileSync(join(dir, 'short'), 'short');
    const problems = problemsOf({ API_SECRET_FILE: join(dir, 'short') });
    expect(problems.join('\n')).toContain('<redacted>');
    expect(problems.join('\n')).not.toContain('short"');
  });

  it('refuses a variable set both directly and as a file, and an unreadable file', () => {
    expect(problemsOf({ API_SECRET: 'x'.repeat(16), API_SECRET_FILE: '/etc/hostname' }).join()).toContain('set both');
    expect(problemsOf({ API_SECRET_FILE: '/nonexistent/secret' }).join()).toContain('ENOENT');
  });

  it('takes the bus user with its password file, and refuses one without the other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'nats'), 'bus-password\n');
    const cfg = loadConfig('svc', schema, { API_SECRET: 'x'.repeat(16), NATS_USER: 'scheduler', NATS_PASSWORD_FILE: join(dir, 'nats') });
    expect([cfg.NATS_USER, cfg.NATS_PASSWORD]).toEqual(['scheduler', 'bus-password']);
    expect(problemsOf({ API_SECRET: 'x'.repeat(16), NATS_USER: 'scheduler' }).join()).toMatch(/^NATS_PASSWORD: required with NATS_USER/);
    expect(problemsOf({ API_SECRET: 'x'.repeat(16), NATS_PASSWORD_FILE: join(dir, 'nats') }).join()).toMatch(/^NATS_PASSWORD: set without NATS_USER/);
    expect(problemsOf({ API_SECRET: 'x'.repeat(16), NATS_USER: 'has space', NATS_PASSWORD: 'p' }).join()).toMatch(/^NATS_USER:/);
  });
});
