// Podman as this project runs it (docs/operations.md "Images"): Debian's podman with the runc runtime and a
// containers.conf whose `[containers]` section sets `default_ulimits = []` (in this sandbox the
// default crun fails on cgroups and the default ulimits cannot be applied).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCommand } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';

export const IMAGES_DIR = join(REPO_ROOT, '.local', 'images');
/** The name the Containerfile's BASE_IMAGE defaults to: made locally here, pulled in a real pipeline. */
export const BASE_IMAGE = 'docker.io/library/debian:bookworm-slim';
export const IMAGE_REPOSITORY = 'registry.example.com/dv/dv-platform';

const CONTAINERS_CONF = '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n';

let prepared: NodeJS.ProcessEnv | undefined;

/** Installs podman and runc when missing (apt, as root) and returns the environment podman runs with. */
export function podmanEnv(log: (msg: string) => void): NodeJS.ProcessEnv {
  if (prepared) return prepared;
  ensureCommand('podman', 'podman', log);
  ensureCommand('runc', 'runc', log);
  mkdirSync(IMAGES_DIR, { recursive: true });
  const conf = join(IMAGES_DIR, 'containers.conf');
  writeFileSync(conf, CONTAINERS_CONF);
  prepared = { ...process.env, CONTAINERS_CONF: conf };
  return prepared;
}

function args(rest: readonly string[]): string[] {
  return ['--runtime', 'runc', ...rest];
}

/** Runs podman and returns its stdout; throws with its stderr on a non-zero exit. */
export function podman(rest: readonly string[], log: (msg: string) => void, input?: Buffer): string {
  const r = spawnSync('podman', args(rest), { env: podmanEnv(log), input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`podman ${rest.join(' ')} failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').trim().split('\n').slice(-20).join('\n')}`);
  return r.stdout.trim();
}

/** podman with its output streamed to ours (long builds); resolves with the exit code. */
export function podmanStreamed(rest: readonly string[], log: (msg: string) => void): Promise<number> {
  const child = spawn('podman', args(rest), { env: podmanEnv(log), stdio: ['ignore', 'inherit', 'inherit'], cwd: REPO_ROOT });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

export function imageExists(name: string, log: (msg: string) => void): boolean {
  return spawnSync('podman', args(['image', 'exists', name]), { env: podmanEnv(log) }).status === 0;
}
