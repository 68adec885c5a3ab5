import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import type { Caller } from '../services/auth.ts';
import { Intake } from '../services/intake.ts';
import { guessEmailColumn, readList, type ListRead } from '../services/upload.ts';
import type { ConsoleContext } from './context.ts';
import { count, plural } from './format.ts';
import { PageError } from './page.ts';
import type { StoredUpload } from './uploads.ts';
import type { Viewer } from './viewer.ts';

// A stored upload read the way POST /v1/jobs reads a file (services/upload.ts readList, the same
// Intake), for its preview and for its confirm; and what would refuse the job, found before the
// confirm button is offered: a pure table of rules over the numbers.

export const SAMPLE_ROWS = 10;

export interface ReadUpload {
  read: ListRead;
  intake: Intake;
  /** sha256 of the file's bytes. */
  digest: string;
}

/** Reads the stored file with `column` (a header name), else the guessed column; a file that cannot be read is a PageError in words. */
export async function readUpload(cc: ConsoleContext, upload: StoredUpload, caller: Caller, column: string | undefined): Promise<ReadUpload> {
  const bytes = await cc.uploads.bytes(upload.id);
  if (!bytes) throw uploadGone();
  const intake = new Intake(caller.account.limits.emailsPerJob, D.invalidListedMax);
  const limits = { maxBytes: D.uploadMaxBytes, maxItems: caller.account.limits.emailsPerJob, invalidListedMax: D.invalidListedMax, metaMaxKeys: D.metaMaxKeys, metaMaxValueChars: D.metaMaxValueChars };
  const pick = (header: string[]) => (column !== undefined && header.includes(column) ? header.indexOf(column) : guessEmailColumn(header));
  try {
    const read = await readList(Readable.from([bytes]), upload.format, intake, limits, { column: pick, sampleRows: SAMPLE_ROWS });
    return { read, intake, digest: createHash('sha256').update(bytes).digest('hex') };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'job_too_large') {
      throw new PageError(413, 'This list is too large for one job', `${upload.fileName} holds more than ${count(caller.account.limits.emailsPerJob)} unique addresses, the most your plan allows in one list. Split it into smaller files, or see the plan page for larger lists.`);
    }
    throw new PageError(422, 'This file cannot be used', `${typeof err.detail === 'string' ? err.detail : err.code} Upload another file.`);
  }
}

export const uploadGone = () => new PageError(404, 'Not found', 'This upload does not exist: uploads wait 30 minutes for their confirm step, and only for the person who made them. Upload the file again.');

/** The numbers a job start is judged by. */
export interface Standing {
  unique: number;
  sandbox: boolean;
  credits: number;
  perJob: number;
  running: number;
  concurrent: number;
  usedToday: number;
  perDay: number;
  inactive: boolean;
}

export interface Refusal {
  why: string;
  /** What to do instead, with where to do it. */
  todo: string;
  href: string;
  link: string;
}

interface Rule {
  refuses(s: Standing): boolean;
  refusal(s: Standing): Refusal;
}

/** Every reason JobService would refuse the job, in the order a person should deal with them. */
const RULES: readonly Rule[] = [
  {
    refuses: (s) => s.inactive,
    refusal: () => ({ why: 'This account is inactive, so lists are refused.', todo: 'Reactivate it on', href: '/app/plan', link: 'the plan page' }),
  },
  {
    refuses: (s) => s.unique === 0,
    refusal: () => ({ why: 'The file holds no valid address to verify.', todo: 'Choose another column above, or', href: '/app/lists/new', link: 'upload another file' }),
  },
  {
    refuses: (s) => s.unique > s.perJob,
    refusal: (s) => ({ why: `The list holds ${plural(s.unique, 'unique address', 'unique addresses')}; your plan allows ${count(s.perJob)} in one list.`, todo: 'Split it into smaller files, or see', href: '/app/plan', link: 'the plan page' }),
  },
  {
    refuses: (s) => !s.sandbox && s.unique > s.credits,
    refusal: (s) => ({ why: `This list costs ${plural(s.unique, 'credit')} and the account has ${count(s.credits)}.`, todo: 'Buy credits or change plan on', href: '/app/plan', link: 'the plan page' }),
  },
  {
    refuses: (s) => s.running >= s.concurrent,
    refusal: (s) => ({ why: `The account already has ${plural(s.running, 'list')} running, the most your plan allows at once.`, todo: 'Wait for one to finish (this upload waits 30 minutes), see', href: '/app/lists', link: 'your lists' }),
  },
  {
    refuses: (s) => !s.sandbox && s.usedToday + s.unique > s.perDay,
    refusal: (s) => ({ why: `Today's cap is ${count(s.perDay)} live addresses and ${count(s.usedToday)} are used; this list would take ${count(s.unique)}.`, todo: 'The cap resets at 00:00 UTC; or upload a smaller file, or see', href: '/app/plan', link: 'the plan page' }),
  },
];

export function refusals(s: Standing): Refusal[] {
  return RULES.filter((r) => r.refuses(s)).map((r) => r.refusal(s));
}

export async function standingOf(cc: ConsoleContext, viewer: Viewer, caller: Caller, unique: number): Promise<Standing> {
  const limits = caller.account.limits;
  const [running, usedToday] = await Promise.all([cc.api.jobs.runningJobIds(viewer.account._id, 'list'), viewer.sandbox ? 0 : cc.api.limits.usedToday(viewer.account._id)]);
  return {
    unique,
    sandbox: viewer.sandbox,
    credits: viewer.account.credits,
    perJob: limits.emailsPerJob,
    running: running.length,
    concurrent: limits.concurrentJobs,
    usedToday,
    perDay: limits.emailsPerDay,
    inactive: viewer.account.status === 'inactive',
  };
}
