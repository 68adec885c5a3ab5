import { COLLECTIONS, isId, type EventDoc, type JobDoc } from '@dv/contracts';
import { loadDecisionCounts, type DecisionCounts } from '@dv/notify';
import { can } from '@dv/accounts';
import { badge, html, progress, renderHtml, type Node, type Part } from '@dv/web';
import { jobEta } from '../services/eta.ts';
import type { LoadView } from '../services/load.ts';
import type { ConsoleContext } from './context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { count, duration } from './format.ts';
import { notFound, type PageCall, type PageResult } from './page.ts';
import type { Viewer } from './viewer.ts';

// What the lists pages share: reading the account's jobs (with the decision counts a finished
// list's completion event stores, in the same query), and the words and parts that show a job's
// state. The ETA and load are the API's own (GET /v1/jobs/{id}: services/eta.ts, load.ts).

export const JOBS_PER_PAGE = 20;
/** How often an open page asks for fresh progress while a list runs (defaults.ts). */
export const LIVE_EVERY_MS = D.consoleListLiveIntervalMs;

export type ListedJob = JobDoc & { decisions: DecisionCounts | null };

const STATUS_TONE: Record<JobDoc['status'], 'ok' | 'warn' | 'bad' | 'neutral'> = { running: 'neutral', completed: 'ok', canceled: 'warn', failed: 'bad' };
export const statusBadge = (job: Pick<JobDoc, 'status'>): Node => badge(job.status, STATUS_TONE[job.status]);
export const sandboxBadge = (job: Pick<JobDoc, 'mode' | 'kind'>): Node => html`${job.mode === 'sandbox' ? badge('sandbox', 'neutral') : null}${job.kind === 'single' ? html` ${badge('single check', 'neutral')}` : null}`;
export const jobName = (job: Pick<JobDoc, '_id' | 'label'>): string => job.label ?? job._id;

export const STATUS_PARTS = (c: JobDoc['counts']): Part[] => [
  { label: 'Deliverable', value: c.deliverable, tone: 'ok' },
  { label: 'Risky', value: c.risky, tone: 'warn' },
  { label: 'Undeliverable', value: c.undeliverable, tone: 'bad' },
  { label: 'Unknown', value: c.unknown, tone: 'neutral' },
];

export const DECISION_PARTS = (d: DecisionCounts): Part[] => [
  { label: 'Send', value: d.send, tone: 'ok' },
  { label: 'Review', value: d.review, tone: 'warn' },
  { label: 'Drop', value: d.drop, tone: 'bad' },
];

/**
 * A page of the account's jobs, newest first, after the job id `after` (as GET /v1/jobs pages):
 * one query on the account_jobs index, joining each job's completion event by its unique job
 * index for the decision counts the scheduler stored there.
 */
export async function listJobs(cc: ConsoleContext, accountId: string, after: string | undefined): Promise<{ jobs: ListedJob[]; next: string | null }> {
  const match: Record<string, unknown> = { account_id: accountId };
  if (after) match._id = { $lt: after };
  const docs = await cc.api.db
    .collection<JobDoc>(COLLECTIONS.jobs.name)
    .aggregate<JobDoc & { ev: Pick<EventDoc, 'data'>[] }>([
      { $match: match },
      { $sort: { _id: -1 } },
      { $limit: JOBS_PER_PAGE + 1 },
      { $lookup: { from: COLLECTIONS.events.name, localField: '_id', foreignField: 'job_id', as: 'ev', pipeline: [{ $project: { _id: 0, data: 1 } }] } },
    ])
    .toArray();
  const page = docs.slice(0, JOBS_PER_PAGE).map(({ ev, ...job }) => ({ ...job, decisions: storedDecisions(ev[0]?.data) }));
  return { jobs: page, next: docs.length > JOBS_PER_PAGE ? page[page.length - 1]!._id : null };
}

function storedDecisions(data: Record<string, unknown> | undefined): DecisionCounts | null {
  const d = data?.decisions as Partial<DecisionCounts> | undefined;
  return d && [d.send, d.review, d.drop].every((n) => Number.isSafeInteger(n)) ? { send: d.send!, review: d.review!, drop: d.drop! } : null;
}

/** The job page's decision counts: stored with a completed list, else counted from its items. */
export async function jobDecisions(cc: ConsoleContext, job: JobDoc): Promise<DecisionCounts> {
  if (job.status === 'completed') {
    const ev = await cc.api.db.collection<EventDoc>(COLLECTIONS.events.name).findOne({ job_id: job._id }, { projection: { data: 1 } });
    const stored = storedDecisions(ev?.data);
    if (stored) return stored;
  }
  return loadDecisionCounts(cc.api.db, job._id);
}

/** The viewer's account's job, or the 404 page (a malformed id, another account's job). */
export async function ownJob(cc: ConsoleContext, accountId: string, id: unknown): Promise<JobDoc> {
  const job = typeof id === 'string' && isId('job', id) ? await cc.reads.job(accountId, id) : null;
  if (!job) throw notFound('That list');
  return job;
}

const LOAD_WORDS: Record<LoadView['load'], string> = { normal: 'normal', busy: 'busy: lists take longer than usual', saturated: 'saturated: lists wait for capacity' };

/** "about 3 minutes left", or why no estimate is possible; null once the job ended. */
export function etaWords(job: JobDoc, load: LoadView, now = new Date()): string | null {
  if (job.status !== 'running') return null;
  const eta = jobEta(job, load, now);
  if (eta.seconds !== null) return `about ${duration(eta.seconds)} left`;
  return eta.reason === 'no_probe_capacity' ? 'no estimate: no checking capacity is online, the list waits for it' : 'no estimate yet';
}

/** Status, progress bar, ETA and load: the part of a job that moves while it runs. */
export function progressLine(job: JobDoc, load: LoadView): Node {
  const eta = etaWords(job, load);
  return html`<div class="job-progress">
    ${statusBadge(job)} ${sandboxBadge(job)}
    ${progress(job.done, job.total, `Progress of ${jobName(job)}`)}
    ${eta ? html`<p class="muted">ETA ${eta} · load ${LOAD_WORDS[load.load]}</p>` : null}
  </div>`;
}

/** "812 deliverable · 41 risky · …" in one line. */
export function countsLine(parts: Part[]): Node {
  return html`<span>${parts.map((p, i) => html`${i > 0 ? ' · ' : ''}${count(p.value)} ${p.label.toLowerCase()}`)}</span>`;
}

/**
 * A live region's answer (GET …/live, what enhance.js puts in the region). Without a session, or
 * without the right to see lists, it is not redirected like a page (the script would put the
 * sign-in page in the region and go on asking): it says so in the region and ends the refresh.
 */
export async function liveAnswer(call: PageCall<Viewer | null>, region: (viewer: Viewer) => Promise<Node>): Promise<PageResult> {
  const { viewer, res } = call;
  const body = viewer && can(viewer.role, 'run_lists') ? await region(viewer) : html`<div data-live-done=""><p class="flash flash-info">Your session has ended: reload the page to sign in again.</p></div>`;
  res.type('html').send(renderHtml(body));
  return { done: true };
}
