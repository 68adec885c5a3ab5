// Runs a simulated world in a child process, so a benchmark's CPU figures are the client's alone
// and the world's event loop does not compete with it. Loopback only (the world binds 127/8).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld } from '@dv/world';

export interface WorldProcess {
  /** DNS_SERVERS, SMTP_PORT, RDAP_BOOTSTRAP_URL. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The default world (or `path`) with every reply `latencyMs` late, in its own process. */
export async function startWorldProcess(latencyMs: number, path = DEFAULT_WORLD_PATH, startTimeoutMs = 30_000): Promise<WorldProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-world-'));
  const file = join(dir, 'world.json');
  writeFileSync(file, JSON.stringify({ ...loadWorld(path), latencyMs }));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'packages/world/src/cli.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const env = await new Promise<Record<string, string>>((resolve, reject) => {
      const found: Record<string, string> = {};
      const timer = setTimeout(() => reject(new Error('world did not start in time')), startTimeoutMs);
      void exited.then(() => reject(new Error('world process exited before it was ready')));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^([A-Z_]+)=(.*)$/.exec(line);
        if (m) found[m[1]!] = m[2]!;
        else if (line.startsWith('#')) {
          clearTimeout(timer);
          resolve(found);
        }
      });
    });
    return { env, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
