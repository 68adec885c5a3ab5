import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';

// The `stack` it provides is declared (vitest's ProvidedContext) and read (stackEnv) in @dv/test-kit.

/**
 * Starts one private stack for the whole run, on free ports and in its own data folder, so tests
 * never touch a developer's `npm start` stack or services on the standard ports.
 * DV_TEST_STACK=0 skips it for quick runs of pure unit tests.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.DV_TEST_STACK === '0') {
    project.provide('stack', {});
    return async () => undefined;
  }
  const dataDir = join(REPO_ROOT, '.local', `test-stack-${process.pid}`);
  let stack: Stack | undefined;
  try {
    stack = await startStack({ dataDir, log: (msg) => process.stdout.write(`[stack] ${msg}\n`) });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  project.provide('stack', stack.env);
  return async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
