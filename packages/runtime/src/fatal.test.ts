import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a process does when an exception reaches the top (runService installs this): one fatal
// JSON log line naming the error and its origin, then exit 1 at once. Run in a child process,
// since the point is that the process ends.

const shutdownModule = fileURLToPath(new URL('./shutdown.ts', import.meta.url));
const loggerModule = fileURLToPath(new URL('./logger.ts', import.meta.url));

function crash(body: string): { status: number | null; lines: Record<string, unknown>[]; stderr: string } {
  const script = `
    import { installFatalHandlers } from ${JSON.stringify(shutdownModule)};
    import { createLogger } from ${JSON.stringify(loggerModule)};
    installFatalHandlers(createLogger('crashy', 'info'));
    setInterval(() => undefined, 1000);
    ${body}
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  const lines = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { status: r.status, lines, stderr: r.stderr };
}

describe('installFatalHandlers', () => {
  it('an exception thrown from a timer is logged as one fatal JSON line, then the process exits 1', () => {
    const r = crash(`setTimeout(() => { throw new URIError('URI malformed'); }, 10);`);
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({ level: 60, service: 'crashy', origin: 'uncaughtException', msg: 'uncaught exception; exiting', err: { type: 'URIError', message: 'URI malformed' } });
  });

  it('a rejection nobody handles ends the same way', () => {
    const r = crash(`setTimeout(() => { void Promise.reject(new Error('nobody awaits me')); }, 10);`);
    expect(r.status).toBe(1);
    expect(r.lines[0]).toMatchObject({ level: 60, origin: 'unhandledRejection', err: { message: 'nobody awaits me' } });
  });
});
