// The package's `install` script: builds the optional udp_batch addon with node-gyp (bundled with
// npm, which passes its path in npm_config_node_gyp). The addon is an optimization only, so this
// never fails the install: without a compiler, headers or Linux, it says so and exits 0, and the
// resolver uses node:dgram (src/resolver/native.ts decides at run time).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const note = (msg) => process.stderr.write(`@dv/mailsec: ${msg}; the DNS resolver will use node:dgram (slower, same behaviour)\n`);

if (process.platform !== 'linux') {
  note(`batched UDP needs Linux (recvmmsg/sendmmsg), not ${process.platform}`);
  process.exit(0);
}
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp && existsSync(gyp) ? [process.execPath, [gyp]] : ['node-gyp', []];
const r = spawnSync(cmd, [...args, 'rebuild'], { cwd: here, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
if (r.status !== 0) {
  // A half-built tree must not leave a stale module behind.
  rmSync(join(here, 'build'), { recursive: true, force: true });
  const tail = (r.stderr ?? String(r.error ?? '')).trim().split('\n').slice(-5).join('\n');
  process.stderr.write(`${tail}\n`);
  note(`native UDP batching not built (node-gyp ${r.error ? 'not found' : `exit ${r.status}`})`);
}
process.exit(0);
