// Runs before every npm script a README command names (pre-scripts of start, demo, test, admin,
// stack, bench, conformance and images), under whatever Node the machine has (so plain JavaScript,
// no TypeScript). On a fresh clone it installs the dependencies,
// which include the Node 24 binary every project script then runs on.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules', '.bin', 'node')) || !existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  process.stdout.write('First run: installing dependencies (npm ci), including Node 24…\n');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
