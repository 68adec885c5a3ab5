// The tunables rows are the one list of every service's environment variables: its config schema
// is built from them and the docs' tables are printed from them (scripts/config-tables.ts). These
// tests fail when a table was edited by hand or not regenerated, and when a schema carries a
// variable no row describes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultOf, loadConfig, nameUnit, type Tunables } from '@dv/runtime';
import { COMMON_TUNABLES, DOC_FILES, renderTables, SERVICES } from '../scripts/config-tables.ts';

describe('docs tables', () => {
  it.each(DOC_FILES.map((f) => [f.replace(/.*\/(?=README|docs\/)/, ''), f]))('%s agrees with the rows (run node scripts/config-tables.ts)', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('<!-- config-table ');
    expect(renderTables(text)).toBe(text);
  });

  it('docs/configuration.md lists every row of every service', () => {
    const text = readFileSync(DOC_FILES.find((f) => f.endsWith('configuration.md'))!, 'utf8');
    for (const rows of [COMMON_TUNABLES, ...Object.values(SERVICES).map((s) => s.rows)]) {
      for (const name of Object.keys(rows)) expect(text).toContain(`| \`${name}\` |`);
    }
  });

  it('README\'s "Used by" table names the services whose rows have each variable', () => {
    const readme = readFileSync(DOC_FILES.find((f) => f.endsWith('README.md'))!, 'utf8');
    const table = readme.slice(readme.indexOf('| Variable | Used by |'));
    const lines = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const [, name = '', usedBy = ''] = /^\| `([A-Z0-9_]+)` \| ([^|]+) \|/.exec(line) ?? [];
      const expected = Object.entries(SERVICES)
        .filter(([, { rows }]) => name in rows)
        .map(([service]) => service);
      expect(usedBy.split(',').map((s) => s.trim()).sort(), name).toEqual(expected.sort());
    }
  });

  it('a table whose rows were edited by hand is rewritten', () => {
    const text = '<!-- config-table gateway: UPGRADE_URL -->\n| `UPGRADE_URL` | `https://elsewhere` | | edited |\n<!-- /config-table -->';
    const rendered = renderTables(text);
    expect(rendered).not.toBe(text);
    expect(rendered).toContain("`<PUBLIC_BASE_URL>/app/plan` (the console's plan page)");
  });
});

describe.each(Object.entries(SERVICES))('%s', (service, { rows, schema }) => {
  const all: Tunables = { ...COMMON_TUNABLES, ...rows };

  it('its schema has exactly the rows, in their order', () => {
    expect(Object.keys(schema.shape)).toEqual(Object.keys(all));
    // The same schema objects, so the table's defaults and ranges are the ones validation applies.
    for (const [name, row] of Object.entries(rows)) expect(schema.shape[name as keyof typeof schema.shape], name).toBe(row.schema);
  });

  it('its parsed config has exactly the rows\' keys, with the rows\' defaults', () => {
    const config = loadConfig(service, schema, {}) as Record<string, unknown>;
    const parsedKeys = Object.keys(config).filter((k) => config[k] !== undefined);
    const withDefault = Object.entries(all)
      .filter(([, row]) => row.schema.safeParse(undefined).data !== undefined)
      .map(([name]) => name);
    expect(parsedKeys.sort()).toEqual(withDefault.sort());
    for (const key of Object.keys(config)) expect(all, key).toHaveProperty(key);
    for (const [name, row] of Object.entries(rows)) {
      if (row.defaultText === undefined && config[name] !== undefined) {
        const value = config[name];
        expect(defaultOf(row), name).toBe(Array.isArray(value) ? (value.length === 0 ? 'empty' : value.join(',')) : typeof value === 'object' ? JSON.stringify(value) : value === '' ? 'empty' : String(value));
      }
    }
  });

  it('every row says what it does; a unit is given only where the name carries none', () => {
    for (const [name, row] of Object.entries(all)) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(row.meaning.trim(), name).not.toBe('');
      expect(row.meaning, name).not.toContain('\n');
      if (row.unit !== undefined) expect(nameUnit(name), `${name} carries its unit (${nameUnit(name)}) in its name`).toBeUndefined();
    }
  });
});
