// The pipeline's job cache: messages pulled together whose job entry has expired share one read of
// the job document instead of one each (the read is work for MongoDB and promoted garbage here).
import { describe, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import type { JobDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import type { Finisher } from '../store/finisher.ts';
import { Pipeline } from './pipeline.ts';
import type { ResultStore } from '../store/store.ts';

function fakeDb(reads: string[], job: Partial<JobDoc> | null): Db {
  const collection = () => ({
    findOne: async (filter: { _id: string }) => {
      reads.push(filter._id);
      await new Promise((r) => setTimeout(r, 20));
      return job ? { ...job, _id: filter._id } : null;
    },
  });
  return { collection } as unknown as Db;
}

function pipelineOn(db: Db): { job(id: string): Promise<JobDoc | null> } {
  const p = new Pipeline({ db, log: createLogger('test', 'silent'), store: {} as ResultStore, finisher: {} as Finisher, live: () => undefined, held: new Set(), maxDeliveries: 20, onPoison: () => undefined });
  return p as unknown as { job(id: string): Promise<JobDoc | null> };
}

describe('pipeline job cache', () => {
  it('concurrent misses share one read; a fresh entry is served without a read', async () => {
    const reads: string[] = [];
    const p = pipelineOn(fakeDb(reads, { status: 'running' }));
    const jobs = await Promise.all(Array.from({ length: 50 }, () => p.job('job_a')));
    expect(reads).toEqual(['job_a']);
    expect(new Set(jobs).size).toBe(1);
    expect(jobs[0]?._id).toBe('job_a');
    await p.job('job_a');
    expect(reads).toEqual(['job_a']);
    await Promise.all([p.job('job_b'), p.job('job_b')]);
    expect(reads).toEqual(['job_a', 'job_b']);
  });

  it('a missing job is not cached: the next message reads again', async () => {
    const reads: string[] = [];
    const p = pipelineOn(fakeDb(reads, null));
    expect(await Promise.all([p.job('job_x'), p.job('job_x')])).toEqual([null, null]);
    expect(await p.job('job_x')).toBeNull();
    expect(reads).toEqual(['job_x', 'job_x']);
  });
});
