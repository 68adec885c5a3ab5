import type { Db } from 'mongodb';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { membershipsOfMany, type AccountMembership } from '@dv/accounts';
import { Coalescer } from '../services/coalescer.ts';

// The reads every console request makes (who the viewer is) and every open page's live refresh
// makes (its job), grouped: requests that arrive while a read is in flight share the next one
// (services/coalescer.ts, as the API groups its lookups). A thousand open pages refreshing every
// few seconds cost a few queries a second rather than one or two each; alone, a read goes at once.
// Nothing is cached: each answer is read after its request arrived, so a removed member or a
// finished job shows at the next request.

export interface ReadGrouping {
  /** Reads per round trip at most. */
  maxBatch: number;
  /** Round trips of one kind in flight at once. */
  maxInFlight: number;
}

export class ConsoleReads {
  private readonly people: Coalescer<string, AccountMembership[]>;
  private readonly jobs: Coalescer<string, JobDoc | null>;

  constructor(db: Db, grouping: ReadGrouping) {
    this.people = new Coalescer({
      ...grouping,
      flush: async (ids) => {
        const found = await membershipsOfMany(db, ids);
        return ids.map((id) => found.get(id) ?? []);
      },
    });
    this.jobs = new Coalescer({
      ...grouping,
      flush: async (ids) => {
        const docs = await db.collection<JobDoc>(COLLECTIONS.jobs.name).find({ _id: { $in: [...new Set(ids)] } }).toArray();
        const byId = new Map(docs.map((d) => [d._id, d]));
        return ids.map((id) => byId.get(id) ?? null);
      },
    });
  }

  /** The accounts a person belongs to, oldest membership first. */
  membershipsOf(personId: string): Promise<AccountMembership[]> {
    return this.people.add(personId);
  }

  /** The account's job with this id, or null (none, or another account's). */
  async job(accountId: string, jobId: string): Promise<JobDoc | null> {
    const job = await this.jobs.add(jobId);
    return job && job.account_id === accountId ? job : null;
  }
}
