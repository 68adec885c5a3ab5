// Test helpers that need this package (other workspaces' tests import them as @dv/runtime/testing).
import { randomBytes } from 'node:crypto';
import { stackEnv } from '@dv/test-kit';
import { connectMongo, type MongoDependency } from './mongo.ts';

/** A database of its own for one test file, dropped by the caller's afterAll. */
export async function isolatedMongo(label: string): Promise<MongoDependency> {
  const env = stackEnv();
  return connectMongo(env.MONGODB_URL as string, `t_${label}_${randomBytes(4).toString('hex')}`);
}
