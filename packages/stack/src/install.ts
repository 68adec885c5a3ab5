import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The absolute path of `command` on PATH (or in /usr/sbin, where Debian puts nats-server), or null. */
export function which(command: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/usr/lib/wine'];
  for (const dir of dirs) {
    const candidate = `${dir}/${command}`;
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

let aptUpdated = false;

/**
 * Returns the path of `command`, installing Debian package `pkg` with apt-get when it is missing.
 * Needs root (CI and the dev machines run as root); otherwise says exactly what to install.
 */
export function ensureCommand(command: string, pkg: string, log: (msg: string) => void): string {
  const found = which(command);
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !which('apt-get')) {
    throw new Error(`${command} is not installed. Install the Debian package "${pkg}" (sudo apt-get install -y ${pkg}) and run again.`);
  }
  log(`installing ${pkg} with apt-get (one time)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq', '-o', 'DPkg::Lock::Timeout=600'], { stdio: 'ignore', env });
    aptUpdated = true;
  }
  // Test files run in parallel workers and may install packages at the same moment: apt waits for
  // the other's dpkg lock instead of failing at once (a fresh-clone run lost its stack that way).
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', '-o', 'DPkg::Lock::Timeout=600', pkg], { stdio: 'ignore', env });
  } catch (err) {
    // Another process may have installed it meanwhile.
    if (!which(command)) throw err;
  }
  const installed = which(command);
  if (!installed) throw new Error(`apt-get installed ${pkg} but ${command} is still not on PATH`);
  return installed;
}
