// `npm run images [-- build|smoke|all] [--rebuild-base]`: builds the dv-platform image with podman
// (base image made locally, see images-build.ts) and smoke-tests it against the local stack
// (images-smoke.ts). Default: all. Prints each phase's time; exits non-zero on any failure.
import { buildImage, ensureBaseImage, imageTag } from './images-build.ts';
import { smokeImage } from './images-smoke.ts';

const USAGE = 'usage: npm run images -- [build|smoke|all] [--rebuild-base]';
const argv = process.argv.slice(2);
const command = argv.find((a) => !a.startsWith('--')) ?? 'all';
if (!['build', 'smoke', 'all'].includes(command) || argv.some((a) => a.startsWith('--') && a !== '--rebuild-base')) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(64);
}
const t0 = Date.now();
const log = (msg: string) => process.stdout.write(`[images ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
const tag = imageTag();

try {
  if (command !== 'smoke') {
    ensureBaseImage(log, argv.includes('--rebuild-base'));
    await buildImage(tag, log);
    log(`built ${tag}`);
  }
  if (command !== 'build') {
    await smokeImage(tag, log);
    log(`smoke test passed for ${tag}`);
  }
  log('done');
} catch (err) {
  process.stderr.write(`\nimages: ${(err as Error).message}\n`);
  process.exit(1);
}
