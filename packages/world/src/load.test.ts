import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD_PATH, WorldValidationError, loadWorld, parseWorld } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'dv-world-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeWorld(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WorldValidationError);
    return (error as WorldValidationError).problems;
  }
  throw new Error('expected a WorldValidationError');
}

describe('loadWorld', () => {
  it('loads the default world, which uses only reserved names and the MX address plan', () => {
    const world = loadWorld(DEFAULT_WORLD_PATH);
    expect(world.smtp.hosts.length).toBeGreaterThan(10);
    for (const record of world.dns.records) expect(record.name).toMatch(/(^|\.)(test|in-addr\.arpa)$/);
    for (const host of world.smtp.hosts) expect(host.ip).toMatch(/^127\.0\.[1-9]\.\d+$/);
    expect(Object.keys(world.rdap.domains).every((d) => d.endsWith('.test'))).toBe(true);
  });

  it('lists every problem of an invalid file, each with its path', () => {
    const path = writeWorld(
      'bad.json',
      JSON.stringify({
        dns: {
          records: [
            { name: 'ok.test', type: 'A', address: '300.1.1.1' },
            { name: 'x.test', type: 'BOGUS' },
            { name: 'txt.test', type: 'TXT', text: 'x'.repeat(256) },
          ],
          behaviours: { 'servfail.test': { servfial: true } },
        },
        smtp: { hosts: [{ name: 'mx.test', ip: '10.0.0.1', behaviour: { catchAll: true, willNotVerify: true, dropAfter: 'data' } }] },
        rdap: { domains: { 'a.test': { registrar: 'R', created: 'yesterday', expires: '2030-01-01' } } },
      }),
    );
    const problems = problemsOf(() => loadWorld(path));
    const expected = [
      /^dns\.records\[0\]\.address: /,
      /^dns\.records\[1\]\.type: /,
      /^dns\.records\[2\]\.text: .*255 bytes/,
      /^dns\.behaviours\["servfail\.test"\]: Unrecognized key: "servfial"/,
      /^smtp\.hosts\[0\]\.ip: must be a loopback address/,
      /^smtp\.hosts\[0\]\.behaviour\.dropAfter: /,
      /^rdap\.domains\["a\.test"\]\.created: must be a date/,
    ];
    for (const pattern of expected) expect(problems.some((p) => pattern.test(p)), `${pattern} in\n${problems.join('\n')}`).toBe(true);
    expect(() => loadWorld(path)).toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a valid world:\n  - `));
  });

  it('checks the world as a whole: CNAME exclusivity, host A records, unique hosts, hostile combinations', () => {
    const problems = problemsOf(() =>
      parseWorld({
        dns: {
          records: [
            { name: 'www.test', type: 'CNAME', target: 'a.test' },
            { name: 'www.test', type: 'TXT', text: 'hello' },
            { name: 'mx1.test', type: 'A', address: '127.0.1.1' },
          ],
        },
        smtp: {
          hosts: [
            { name: 'mx1.test', ip: '127.0.1.1', behaviour: { hostile: 'silent', catchAll: true } },
            { name: 'mx1.test', ip: '127.0.1.2' },
          ],
        },
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'dns.records: www.test has a CNAME and other records (CNAME, TXT)',
        'smtp.hosts[0].behaviour: hostile "silent" cannot be combined with catchAll',
        'smtp.hosts[1]: host name mx1.test is also used by smtp.hosts[0]',
        'smtp.hosts[1]: host mx1.test needs an A record "mx1.test A 127.0.1.2" in dns.records',
      ]),
    );
  });

  it('reports a file that is not JSON or cannot be read', () => {
    expect(problemsOf(() => loadWorld(writeWorld('broken.json', '{ "dns": ')))[0]).toMatch(/^not JSON: /);
    expect(problemsOf(() => loadWorld(join(dir, 'missing.json')))[0]).toMatch(/^cannot read the file: .*ENOENT/);
  });

  it('fills defaults and normalizes names', () => {
    const world = parseWorld({
      dns: { records: [{ name: 'MX.Example.TEST.', type: 'A', address: '127.0.1.1' }] },
      smtp: { hosts: [{ name: 'mx.example.test', ip: '127.0.1.1', mailboxes: ['Alice@Example.test'] }] },
    });
    expect(world.latencyMs).toBe(0);
    expect(world.dns.records[0]).toEqual({ name: 'mx.example.test', type: 'A', address: '127.0.1.1', ttl: 300 });
    expect(world.smtp.hosts[0]?.mailboxes).toEqual(['alice@example.test']);
    expect(world.smtp.hosts[0]?.behaviour).toMatchObject({ pipelining: true, catchAll: false, rateLimitWindowSeconds: 60 });
  });
});
