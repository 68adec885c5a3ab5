import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

// A list uploaded in the console waits in Redis for its confirm step: the gateway runs several
// replicas and keeps nothing between requests, so the preview and the confirm may land on another
// replica than the upload did. The file's bytes are appended as they arrive (the process never
// holds a whole upload), everything expires after `ttlSeconds`, and each person keeps at most
// `perPerson` pending uploads (a new one drops the oldest), so Redis holds a bounded amount.

export interface UploadOwner {
  accountId: string;
  personId: string;
}

/** The options chosen on the upload form. */
export interface UploadOptions {
  label: string | null;
  notifyEmail: boolean;
  webhookUrl: string | null;
  maxWallSeconds: number | null;
}

export interface StoredUpload extends UploadOwner {
  id: string;
  fileName: string;
  format: 'csv' | 'txt';
  size: number;
  options: UploadOptions;
  /** Raised after a refused confirm, so the next confirm is a new request (its own Idempotency-Key). */
  attempt: number;
}

export const UPLOAD_ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export class UploadStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly ttlSeconds: number;
  private readonly perPerson: number;

  constructor(redis: Redis, prefix: string, opts: { ttlSeconds: number; perPerson: number }) {
    this.redis = redis;
    this.prefix = `${prefix}:upload`;
    this.ttlSeconds = opts.ttlSeconds;
    this.perPerson = opts.perPerson;
  }

  private metaKey = (id: string) => `${this.prefix}:${id}:meta`;
  private dataKey = (id: string) => `${this.prefix}:${id}:data`;
  private jobKey = (id: string) => `${this.prefix}:${id}:job`;
  private personKey = (personId: string) => `${this.prefix}s:${personId}`;

  /** A new upload id for this person; their oldest pending uploads beyond the bound are dropped. */
  async begin(owner: UploadOwner): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    const list = this.personKey(owner.personId);
    const res = await this.redis.multi().lpush(list, id).lrange(list, this.perPerson, -1).ltrim(list, 0, this.perPerson - 1).expire(list, this.ttlSeconds).exec();
    const dropped = (res?.[1]?.[1] as string[] | undefined) ?? [];
    if (dropped.length) await this.redis.del(...dropped.flatMap((d) => [this.metaKey(d), this.dataKey(d)]));
    return id;
  }

  /** Appends bytes; false when the upload was dropped meanwhile (a newer one took its place). */
  async append(id: string, owner: UploadOwner, chunk: Buffer): Promise<boolean> {
    if ((await this.redis.lpos(this.personKey(owner.personId), id)) === null) return false;
    await this.redis.multi().append(this.dataKey(id), chunk).expire(this.dataKey(id), this.ttlSeconds).exec();
    return true;
  }

  async finish(upload: StoredUpload): Promise<void> {
    await this.redis.multi().set(this.metaKey(upload.id), JSON.stringify(upload), 'EX', this.ttlSeconds).expire(this.dataKey(upload.id), this.ttlSeconds).exec();
  }

  async discard(id: string, owner: UploadOwner): Promise<void> {
    await this.redis.multi().del(this.metaKey(id), this.dataKey(id)).lrem(this.personKey(owner.personId), 0, id).exec();
  }

  /** The upload, when it exists and belongs to this person in this account; else null. */
  async get(id: string, owner: UploadOwner): Promise<StoredUpload | null> {
    if (!UPLOAD_ID_PATTERN.test(id)) return null;
    const raw = await this.redis.get(this.metaKey(id));
    if (!raw) return null;
    const up = JSON.parse(raw) as StoredUpload;
    return up.accountId === owner.accountId && up.personId === owner.personId ? up : null;
  }

  async bytes(id: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.dataKey(id));
  }

  async nextAttempt(upload: StoredUpload): Promise<void> {
    await this.redis.set(this.metaKey(upload.id), JSON.stringify({ ...upload, attempt: upload.attempt + 1 }), 'KEEPTTL');
  }

  /** The job was started: the file goes, a note of the job stays so a repeated confirm lands on it. */
  async started(upload: StoredUpload, jobId: string): Promise<void> {
    const note = JSON.stringify({ jobId, accountId: upload.accountId, personId: upload.personId });
    await this.redis.multi().set(this.jobKey(upload.id), note, 'EX', this.ttlSeconds).del(this.metaKey(upload.id), this.dataKey(upload.id)).lrem(this.personKey(upload.personId), 0, upload.id).exec();
  }

  /** The job an earlier confirm of this upload started, for the same person and account. */
  async startedJob(id: string, owner: UploadOwner): Promise<string | null> {
    if (!UPLOAD_ID_PATTERN.test(id)) return null;
    const raw = await this.redis.get(this.jobKey(id));
    if (!raw) return null;
    const note = JSON.parse(raw) as UploadOwner & { jobId: string };
    return note.accountId === owner.accountId && note.personId === owner.personId ? note.jobId : null;
  }
}
