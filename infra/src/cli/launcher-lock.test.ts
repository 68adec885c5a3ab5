import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLauncherLock, lockFile, refusalMessage } from './launcher-lock.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dv-lock-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Another live process holding the lock, as a first launcher would.
async function otherHolder(dir: string): Promise<{ pid: number; stop: () => void }> {
  const code = `const { acquireLauncherLock } = await import(${JSON.stringify(join(import.meta.dirname, 'launcher-lock.ts'))});
const r = acquireLauncherLock(${JSON.stringify(dir)}, 'npm run demo');
process.stdout.write(r.ok ? 'held\\n' : 'refused\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => (d.toString().startsWith('held') ? resolve() : reject(new Error(d.toString()))));
  });
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

describe('launcher lock', () => {
  it('refuses while a live launcher holds it, naming its pid and command, and leaves its lock alone', async () => {
    const dir = tempDir();
    const other = await otherHolder(dir);
    try {
      const before = readFileSync(lockFile(dir), 'utf8');
      const r = acquireLauncherLock(dir, 'npm start');
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.holder.pid).toBe(other.pid);
      expect(refusalMessage(r.holder, r.file)).toContain(`pid ${other.pid} (npm run demo`);
      expect(readFileSync(lockFile(dir), 'utf8')).toBe(before);
    } finally {
      other.stop();
    }
  });

  it('takes over the lock of a launcher killed with SIGKILL', async () => {
    const dir = tempDir();
    const other = await otherHolder(dir);
    other.stop();
    await new Promise((r) => setTimeout(r, 200));
    const r = acquireLauncherLock(dir, 'npm start');
    expect(r.ok).toBe(true);
    expect(JSON.parse(readFileSync(lockFile(dir), 'utf8')).pid).toBe(process.pid);
    if (r.ok) r.release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('takes over a lock whose pid now belongs to another process (start time differs)', () => {
    const dir = tempDir();
    // pid 1 is alive but is not a launcher that took this lock.
    writeFileSync(lockFile(dir), JSON.stringify({ pid: 1, startTicks: '999999999999', startedAt: 'then', command: 'npm start' }));
    const r = acquireLauncherLock(dir, 'npm start');
    expect(r.ok).toBe(true);
    if (r.ok) r.release();
  });

  it('takes over an unreadable lock, and release leaves a lock that is not its own', () => {
    const dir = tempDir();
    writeFileSync(lockFile(dir), 'not json');
    const r = acquireLauncherLock(dir, 'npm start');
    expect(r.ok).toBe(true);
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid + 1_000_000, startTicks: null, startedAt: 'x', command: 'npm start' }));
    if (r.ok) r.release();
    expect(existsSync(lockFile(dir))).toBe(true);
  });
});
