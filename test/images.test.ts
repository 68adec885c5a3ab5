// The image's contract without building it (the build and its smoke test are `npm run images`,
// minutes long, not in CI): the entrypoint runs exactly the five services, the Containerfile keeps
// the promises docs/operations.md "Images" makes, and the base image's mirror is the machine's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';
import { EXIT_USAGE, IMAGE_SERVICES, mainFor } from '../scripts/images-entrypoint.ts';
import { hostMirror } from '../scripts/images-build.ts';
import { BASE_IMAGE } from '../scripts/images-podman.ts';

const ENTRY = join(REPO_ROOT, 'scripts', 'images-entrypoint.ts');
const containerfile = readFileSync(join(REPO_ROOT, 'Containerfile'), 'utf8');

function entry(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [ENTRY, ...args], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
}

describe('image entrypoint', () => {
  it('knows exactly the services the launcher runs, each with its main.ts', () => {
    expect([...IMAGE_SERVICES].sort()).toEqual([...SERVICE_NAMES].sort());
    for (const s of IMAGE_SERVICES) expect(existsSync(mainFor(s)!)).toBe(true);
  });

  it('refuses unknown, missing and path-like service names', () => {
    for (const bad of [undefined, '', 'bash', '../gateway', 'gateway/src/main.ts', 'GATEWAY']) expect(mainFor(bad)).toBeNull();
    const unknown = entry(['bash']);
    expect(unknown.status).toBe(EXIT_USAGE);
    expect(unknown.stderr).toContain('unknown service "bash"');
    const none = entry([]);
    expect(none.status).toBe(EXIT_USAGE);
    expect(none.stderr).toContain('usage:');
    expect(entry(['--help']).status).toBe(0);
  });

  it("runs the named service's main.ts in its own process (its config check answers, exit 78)", () => {
    const r = entry(['probe-node'], { PROBE_NODE_ID: 'not valid!' });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('PROBE_NODE_ID');
  });
});

describe('Containerfile', () => {
  it('builds from the base image name the local build tags, in two stages', () => {
    expect(containerfile).toContain(`ARG BASE_IMAGE=${BASE_IMAGE}`);
    expect(containerfile.match(/^FROM \$\{BASE_IMAGE\}/gm)).toHaveLength(2);
  });

  it('runs node itself as PID 1 (exec form), as uid 10001 (the manifests runAsUser)', () => {
    expect(containerfile).toMatch(/^ENTRYPOINT \["\/opt\/node\/bin\/node", "\/app\/scripts\/images-entrypoint\.ts"\]$/m);
    expect(containerfile).toMatch(/^USER 10001:10001$/m);
    const k8s = readFileSync(join(REPO_ROOT, 'k8s', 'base', 'gateway.yaml'), 'utf8');
    expect(k8s).toContain('runAsUser: 10001');
  });

  it('copies the package.json of every workspace before npm ci (else npm ci refuses the lockfile)', () => {
    const { workspaces } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    const dirs = workspaces.flatMap((w) => (w.endsWith('/*') ? readdirSync(join(REPO_ROOT, w.slice(0, -2))).map((p) => `${w.slice(0, -2)}/${p}` ) : [w]));
    expect(dirs.length).toBeGreaterThan(5);
    for (const d of dirs.filter((d) => existsSync(join(REPO_ROOT, d, 'package.json')))) expect(containerfile, `COPY ${d}/package.json`).toContain(`COPY ${d}/package.json ${d}/`);
  });

  it("keeps the addon built for Node 24: prune does not re-run install scripts, a libnode link fails the build", () => {
    expect(containerfile).toMatch(/npm prune --omit=dev --ignore-scripts/);
    expect(containerfile).toMatch(/node-gyp\.js rebuild --nodedir="\$NODE24"/);
    expect(containerfile.match(/! ldd [^\n]*udp_batch\.node \| grep -q libnode/g)).toHaveLength(2);
  });

  it('leaves host installs and the host-built addon out of the build context', () => {
    const ignore = readFileSync(join(REPO_ROOT, '.containerignore'), 'utf8').split('\n');
    for (const line of ['**/node_modules', 'packages/mailsec/native/build', '.local', '.git']) expect(ignore).toContain(line);
  });
});

describe('hostMirror', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-images-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads the main archive from deb822 sources, not the security one', () => {
    const f = file('a.sources', 'Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n');
    expect(hostMirror([f])).toBe('http://mirror.example/debian');
  });

  it('reads one-line sources (with options) and falls back to deb.debian.org', () => {
    const f = file('sources.list', '# comment\ndeb [arch=amd64] http://other.example/debian bookworm main\n');
    expect(hostMirror([join(dir, 'missing'), f])).toBe('http://other.example/debian');
    expect(hostMirror([join(dir, 'missing')])).toBe('http://deb.debian.org/debian');
  });
});
