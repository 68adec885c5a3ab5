// Builds the dv-platform image with podman. The base image (Debian bookworm, the name the
// Containerfile uses) is made locally from a debootstrap of the machine's own apt mirror, so the
// build needs no network but the package registries (Debian's and npm's).
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ensureCommand } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';
import { BASE_IMAGE, IMAGE_REPOSITORY, IMAGES_DIR, imageExists, podman, podmanStreamed } from './images-podman.ts';

const SUITE = 'bookworm';
const FALLBACK_MIRROR = 'http://deb.debian.org/debian';
/** The cached rootfs (a tar): debootstrap runs once per machine, `--rebuild-base` makes it again. */
export const BASE_TAR = join(IMAGES_DIR, `debian-${SUITE}-minbase.tar`);
const HOST_SOURCES = '/etc/apt/sources.list.d/debian.sources';

/** The Debian mirror this machine's apt uses (deb822 `URIs:` or a `deb` line), not the security archive. */
export function hostMirror(files: readonly string[] = [HOST_SOURCES, '/etc/apt/sources.list']): string {
  for (const file of files) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const uris = [...text.matchAll(/^URIs:\s*(\S+)/gm), ...text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]!);
    const main = uris.find((u) => !u.includes('security'));
    if (main) return main;
  }
  return FALLBACK_MIRROR;
}

export function imageTag(): string {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `${IMAGE_REPOSITORY}:${version}`;
}

function makeBaseTar(log: (msg: string) => void): void {
  ensureCommand('debootstrap', 'debootstrap', log);
  const rootfs = join(IMAGES_DIR, 'rootfs.partial');
  rmSync(rootfs, { recursive: true, force: true });
  const mirror = hostMirror();
  log(`debootstrap --variant=minbase ${SUITE} from ${mirror} (one time, about a minute)…`);
  execFileSync('debootstrap', ['--variant=minbase', SUITE, rootfs, mirror], { stdio: ['ignore', 'ignore', 'inherit'] });
  // The image's apt sees what this machine's apt sees (updates and security too, as the public image does).
  if (existsSync(HOST_SOURCES)) {
    copyFileSync(HOST_SOURCES, join(rootfs, 'etc/apt/sources.list.d/debian.sources'));
    rmSync(join(rootfs, 'etc/apt/sources.list'), { force: true });
  }
  for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
    execFileSync('find', [join(rootfs, dir), '-mindepth', '1', '-type', 'f', '-delete']);
  }
  execFileSync('tar', ['-C', rootfs, '--numeric-owner', '-cf', `${BASE_TAR}.partial`, '.']);
  renameSync(`${BASE_TAR}.partial`, BASE_TAR);
  rmSync(rootfs, { recursive: true, force: true });
}

/** Makes (or reuses) the local base image tagged as the public one. */
export function ensureBaseImage(log: (msg: string) => void, rebuild = false): void {
  if (!rebuild && imageExists(BASE_IMAGE, log)) {
    log(`base image ${BASE_IMAGE} present`);
    return;
  }
  if (rebuild || !existsSync(BASE_TAR)) makeBaseTar(log);
  log(`podman import ${BASE_TAR} as ${BASE_IMAGE}`);
  // An imported rootfs has no config: PATH and CMD as the public image sets them.
  podman(['import', '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--change', 'CMD ["bash"]', BASE_TAR, BASE_IMAGE], log);
}

/**
 * `podman build` of the Containerfile. `--pull=never`: the base is the local one (a real pipeline
 * drops it and pulls). Host network for the build steps: apt and npm reach their registries as the
 * host does.
 */
export async function buildImage(tag: string, log: (msg: string) => void): Promise<void> {
  log(`podman build -t ${tag}…`);
  // This machine's extra CAs (NODE_EXTRA_CA_CERTS: a TLS-inspecting proxy in front of the npm
  // registry) reach npm in the build stage as a read-only mount, never a layer of the image.
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const caArgs = ca && existsSync(ca) ? ['--volume', `${ca}:/run/build-ca/ca.crt:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca/ca.crt'] : [];
  const code = await podmanStreamed(['build', '--pull=never', '--network', 'host', ...caArgs, '-f', join(REPO_ROOT, 'Containerfile'), '-t', tag, REPO_ROOT], log);
  if (code !== 0) throw new Error(`podman build failed (exit ${code})`);
}
