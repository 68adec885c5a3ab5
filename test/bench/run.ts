// `npm run bench -- <name>`: runs test/bench/<name>.ts, which prints its figures and ends with one
// JSON line. Benchmarks are measured, not asserted: CI runs the tests, not these.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const name = process.argv[2];
const available = readdirSync(import.meta.dirname).filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.slice(0, -3));
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(join(import.meta.dirname, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- <name>\navailable: ${available.join(', ') || '(none yet)'}\n`);
  process.exit(2);
}
await import(pathToFileURL(join(import.meta.dirname, `${name}.ts`)).href);
