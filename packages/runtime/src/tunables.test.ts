import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { env } from './config.ts';
import { defaultOf, markdownTable, nameUnit, rangeOf, shapeOf, tunables, unitOf } from './tunables.ts';

const rows = tunables({
  WAIT_MS: { schema: env.int(250, 0, 60_000), meaning: 'how long | a pipe' },
  CANARIES: { schema: env.domainList(['a.example', 'b.example']), meaning: 'names' },
  RELAY_URL: { schema: env.url(['smtp:']).optional(), defaultText: 'unset: no mail', meaning: 'relay' },
  SERVERS: { schema: env.hostPorts(), meaning: 'servers' },
  WORKERS: { schema: env.int(4, 1), unit: 'processes', meaning: 'workers' },
  OVERRIDES: { schema: z.string().default('').transform((): Record<string, number> => ({})), meaning: 'json' },
});

describe('tunables rows', () => {
  it('shapeOf gives the schemas in the rows\' order', () => {
    const shape = shapeOf(rows);
    expect(Object.keys(shape)).toEqual(Object.keys(rows));
    expect(shape.WAIT_MS).toBe(rows.WAIT_MS.schema);
    expect(z.object(shape).parse({}).WAIT_MS).toBe(250);
  });

  it('defaultOf reads the default back from the schema (or the row\'s words)', () => {
    expect(defaultOf(rows.WAIT_MS)).toBe('250');
    expect(defaultOf(rows.CANARIES)).toBe('a.example,b.example');
    expect(defaultOf(rows.RELAY_URL)).toBe('unset: no mail');
    expect(defaultOf(rows.SERVERS)).toBe('empty');
    expect(defaultOf(rows.OVERRIDES)).toBe('{}');
  });

  it('the unit comes from the name, else from the row', () => {
    expect(nameUnit('AUTH_ATTEMPTS_PER_IP_PER_MINUTE')).toBe('per client IP per minute');
    expect(nameUnit('DOWNLOAD_LINK_TTL_SECONDS')).toBe('s');
    expect(nameUnit('PORTFOLIO_PLAN_GRACE_S')).toBe('s');
    expect(nameUnit('PROBE_MAX_BUFFERED_BYTES')).toBe('bytes');
    expect(nameUnit('PORTFOLIO_DNS_WORKER_QPS')).toBe('queries/s');
    expect(nameUnit('WORKERS')).toBeUndefined();
    expect(unitOf('WORKERS', rows.WORKERS)).toBe('processes');
    expect(unitOf('WAIT_MS', rows.WAIT_MS)).toBe('ms');
  });

  it('rangeOf shows what a whole-number row accepts', () => {
    expect(rangeOf(rows.WAIT_MS)).toBe('0-60000');
    expect(rangeOf(rows.WORKERS)).toBe('≥ 1');
    expect(rangeOf(rows.CANARIES)).toBe('');
  });

  it('markdownTable prints one line per row, pipes escaped', () => {
    const table = markdownTable(rows).split('\n');
    expect(table).toHaveLength(2 + Object.keys(rows).length);
    expect(table[2]).toBe('| `WAIT_MS` | `250` | ms (0-60000) | how long \\| a pipe |');
    expect(table[4]).toBe('| `RELAY_URL` | unset: no mail |  | relay |');
  });
});
