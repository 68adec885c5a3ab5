import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, loadConfig, serviceSchema } from './config.ts';
import { isLoopbackHost, unsafe, type ProductionRules } from './production.ts';

// A service-like schema with one variable of each kind the real services declare.
const schema = z.object({
  ...serviceSchema(8080),
  PUBLIC_BASE_URL: env.url(['http:', 'https:']).default('http://127.0.0.1:8080'),
  HELO_NAME: z.string().default('probe.localhost'),
  MAIL_FROM: z.string().default('verify@probe.localhost'),
  ALLOW_PRIVATE_TARGETS: env.bool(false),
  SIGNING_SECRET: z.string().min(32).optional(),
});
type Config = z.infer<typeof schema>;
const rules: ProductionRules<Config> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  HELO_NAME: unsafe.localhostName(),
  MAIL_FROM: unsafe.localhostEmail(),
  ALLOW_PRIVATE_TARGETS: unsafe.switchOn('accepts private targets'),
  SIGNING_SECRET: unsafe.secret('link key', ['published-secret-published-secret-0000']),
};

const SAFE = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://api.example.com',
  HELO_NAME: 'probe1.example.com',
  MAIL_FROM: 'verify@example.com',
  SIGNING_SECRET: 'a-fresh-secret-of-at-least-32-characters!',
};

function problemsOf(vars: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig('svc', schema, vars, rules);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).problems];
  }
  return [];
}

describe('production refuses unsafe settings', () => {
  it('accepts safe settings in production', () => {
    expect(problemsOf(SAFE)).toEqual([]);
    expect(problemsOf({ ...SAFE, BEHIND_PROXY: 'true', TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8' })).toEqual([]);
  });

  it.each([
    ['PUBLIC_BASE_URL', 'http://127.0.0.1:8080'],
    ['PUBLIC_BASE_URL', 'http://localhost:8080/'],
    ['PUBLIC_BASE_URL', 'https://[::1]:8443'],
    ['PUBLIC_BASE_URL', 'http://0.0.0.0'],
    ['PUBLIC_BASE_URL', 'http://api.localhost'],
    ['HELO_NAME', 'probe.localhost'],
    ['HELO_NAME', 'localhost'],
    ['MAIL_FROM', 'verify@probe.localhost'],
    ['MAIL_FROM', 'Sender <no-reply@localhost>'],
    ['ALLOW_PRIVATE_TARGETS', 'true'],
    ['ALLOW_PRIVATE_TARGETS', 'yes'],
    ['SIGNING_SECRET', ''],
    ['SIGNING_SECRET', 'published-secret-published-secret-0000'],
    ['TRUSTED_PROXIES', '0.0.0.0/0'],
    ['TRUSTED_PROXIES', '10.0.0.1,::/0'],
  ])('%s=%j is refused', (name, value) => {
    const problems = problemsOf({ ...SAFE, [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: .*NODE_ENV=production`));
  });

  it('BEHIND_PROXY=true needs TRUSTED_PROXIES', () => {
    expect(problemsOf({ ...SAFE, BEHIND_PROXY: 'true' })).toEqual([expect.stringMatching(/^TRUSTED_PROXIES: empty while BEHIND_PROXY=true/)]);
  });

  it('lists every unsafe variable in one error, defaults included, and never echoes a secret', () => {
    const problems = problemsOf({ NODE_ENV: 'production', ALLOW_PRIVATE_TARGETS: '1', BEHIND_PROXY: 'true', SIGNING_SECRET: 'published-secret-published-secret-0000' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['ALLOW_PRIVATE_TARGETS', 'HELO_NAME', 'MAIL_FROM', 'PUBLIC_BASE_URL', 'SIGNING_SECRET', 'TRUSTED_PROXIES']);
    expect(problems.join('\n')).not.toContain('published-secret-published-secret-0000');
  });

  it('outside production the same settings load (local stacks, tests)', () => {
    const unsafeVars = { ALLOW_PRIVATE_TARGETS: 'true', BEHIND_PROXY: 'true' };
    for (const NODE_ENV of [undefined, 'development', 'test']) expect(problemsOf({ ...unsafeVars, NODE_ENV })).toEqual([]);
    const config = loadConfig('svc', schema, { ...unsafeVars, TRUSTED_PROXIES: '10.0.0.1' }, rules);
    expect(config).toMatchObject({ ALLOW_PRIVATE_TARGETS: true, BEHIND_PROXY: true, TRUSTED_PROXIES: ['10.0.0.1'], NODE_ENV: 'development' });
  });

  it('schema problems come first: an unparseable value is reported as invalid, not as unsafe', () => {
    expect(problemsOf({ ...SAFE, TRUSTED_PROXIES: 'proxy.internal', PORT: 'x' }).map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'TRUSTED_PROXIES']);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST.', true],
    ['probe.localhost', true],
    ['127.9.9.9', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', true],
    ['example.com', false],
    ['localhost.example.com', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['::2', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
