import type { JobDoc, JobItemDoc } from '@dv/contracts';
import { facts, html, proportionBar, submit, table, type Node } from '@dv/web';
import { DOWNLOAD_DECISIONS, DOWNLOAD_STATUSES, downloadLinks, type DownloadLink } from '../../services/download-links.ts';
import type { LoadView } from '../../services/load.ts';
import { count, plural, utcTime } from '../format.ts';
import { DECISION_PARTS, jobDecisions, jobName, LIVE_EVERY_MS, liveAnswer, ownJob, progressLine, STATUS_PARTS } from '../jobs.ts';
import { definePage } from '../page.ts';

// GET /app/lists/<job id>: one list: its facts, live progress, its outcome by status and by
// decision, the webhook's delivery, cancel, and its downloads. The downloads are the API's signed
// links (GET /v1/downloads/…), so the files are exactly what the API gives and work without a
// session until they expire. Another account's job, or a malformed id, is the 404 page.

/** The moving part: progress, ETA and the outcome by status; the live answer stops once the job ended. */
export function jobRegion(job: JobDoc, load: LoadView): Node {
  const running = job.status === 'running';
  // The end of a list changes more than this region (status, ended, cancel): the page reloads then.
  return html`<div id="job-live" data-live=${running ? `/app/lists/${job._id}/live` : undefined} data-live-ms=${running ? LIVE_EVERY_MS : undefined} data-live-done=${running ? undefined : ''} data-live-reload=${running ? '' : undefined}>
    ${progressLine(job, load)}
    ${proportionBar('Results by status', STATUS_PARTS(job.counts))}
  </div>`;
}

function jobFacts(job: JobDoc): Node {
  return facts([
    ['Status', job.status],
    ['Mode', job.mode === 'sandbox' ? 'sandbox (simulated, free)' : 'live'],
    ['Addresses', count(job.total)],
    ['Created', utcTime(job.created_at)],
    ['Ended', utcTime(job.completed_at)],
    ['Credits charged', count(job.credits_charged)],
    ['Credits refunded', count(job.credits_refunded)],
    ['Deadline', job.deadline_at ? utcTime(job.deadline_at) : 'none'],
    ['Id', html`<code>${job._id}</code>`],
  ]);
}

function webhookSection(job: JobDoc): Node {
  const w = job.webhook;
  if (!w) return html`<p class="muted">No webhook was set for this list.</p>`;
  const state = w.delivered_at ? `delivered ${utcTime(w.delivered_at)}` : w.attempts === 0 ? 'not sent yet (it is sent when the list ends)' : w.next_attempt_at ? `failed so far; next try ${utcTime(w.next_attempt_at)}` : 'gave up';
  return facts([
    ['URL', html`<code>${w.url}</code>`],
    ['Delivery', state],
    ['Attempts', count(w.attempts)],
    ['Last answer', w.last_status === null ? '—' : `HTTP ${w.last_status}`],
    ['Last error', w.last_error ?? '—'],
  ]);
}

function cancelSection(job: JobDoc, csrf: string): Node {
  if (job.status !== 'running') {
    const why = job.status === 'canceled' ? 'This list was canceled.' : `This list has ${job.status === 'completed' ? 'completed' : 'failed'}: a finished list cannot be canceled.`;
    return html`<p>${why}</p>`;
  }
  const left = job.total - job.done;
  const refund = job.mode === 'live' ? `the unchecked addresses (${count(left)} now) are refunded` : 'sandbox lists are free, nothing is refunded';
  // postForm's markup, plus data-confirm: enhance.js asks before it is sent.
  return html`<form method="post" action=${`/app/lists/${job._id}/cancel`} aria-label="Cancel this list" data-confirm=${`Cancel ${jobName(job)}? The addresses not yet checked are stopped.`}>
    <input type="hidden" name="_csrf" value=${csrf} />
    <p>Canceling stops the addresses not yet checked; ${refund}. Results so far stay.</p>
    ${submit('Cancel this list', { kind: 'danger' })}
  </form>`;
}

interface DownloadRow {
  rows: string;
  csv: string;
  ndjson: string;
}

function downloadRows(links: DownloadLink[]): DownloadRow[] {
  const url = (l: Partial<DownloadLink>, format: 'csv' | 'ndjson') => links.find((x) => x.format === format && x.decision === l.decision && x.status === l.status)!.url;
  const parts: [string, Partial<DownloadLink>][] = [['Every row', {}], ...DOWNLOAD_DECISIONS.map((d): [string, Partial<DownloadLink>] => [`Decision ${d}`, { decision: d }]), ...DOWNLOAD_STATUSES.map((st): [string, Partial<DownloadLink>] => [`Status ${st}`, { status: st }])];
  return parts.map(([rows, l]) => ({ rows, csv: url(l, 'csv'), ndjson: url(l, 'ndjson') }));
}

function downloadsSection(job: JobDoc, links: DownloadLink[]): Node {
  const rows = downloadRows(links);
  return html`${table(
    'Downloads',
    [
      { header: 'Rows', cell: (r: DownloadRow) => r.rows },
      { header: 'CSV', cell: (r) => html`<a href=${r.csv} download aria-label=${`CSV: ${r.rows}`}>CSV</a>` },
      { header: 'NDJSON', cell: (r) => html`<a href=${r.ndjson} download aria-label=${`NDJSON: ${r.rows}`}>NDJSON</a>` },
    ],
    rows,
    'No downloads.',
  )}
    <p class="muted">The CSV keeps the upload's own columns after the result columns. These links work without signing in, for anyone who has them, until ${utcTime(links[0]!.expiresAt)}; ${job.status === 'running' ? 'while the list runs they give the rows checked so far.' : 'open this page again for fresh ones.'}</p>`;
}

const PREVIEW_ROWS = 10;

/** The first rows checked, with the upload's own columns (as text, whatever they hold). */
function previewSection(items: JobItemDoc[]): Node {
  const meta = Object.keys(items[0]?.meta ?? {}).slice(0, 6);
  return table(
    `The first ${plural(items.length, 'row')} checked`,
    [
      { header: 'Email', cell: (i: JobItemDoc) => i.email },
      { header: 'Status', cell: (i) => i.result?.status ?? '—' },
      { header: 'Decision', cell: (i) => i.result?.decision?.action ?? '—' },
      ...meta.map((m) => ({ header: m, cell: (i: JobItemDoc) => i.meta?.[m] ?? '' })),
    ],
    items,
    'No address has been checked yet.',
  );
}

export const jobPage = definePage({
  method: 'get',
  path: '/lists/:jobId',
  access: 'run_lists',
  handle: async ({ cc, req, viewer, csrf }) => {
    const job = await ownJob(cc, viewer.account._id, req.params.jobId);
    const [load, decisions, preview] = await Promise.all([cc.api.load.current(), jobDecisions(cc, job), cc.api.results.page(job._id, {}, PREVIEW_ROWS)]);
    return {
      title: jobName(job),
      body: html`<p><a href="/app/lists">All lists</a></p>
        <h1>${jobName(job)}</h1>
        ${jobFacts(job)}
        <section aria-labelledby="progress-h"><h2 id="progress-h">Progress</h2>${jobRegion(job, load)}</section>
        <section aria-labelledby="decision-h"><h2 id="decision-h">Decisions</h2>
          ${proportionBar(job.status === 'running' ? 'Results by decision, so far' : 'Results by decision', DECISION_PARTS(decisions))}
          <p class="muted">Send: safe to send. Review: unprovable or no verdict yet. Drop: will bounce or should not be mailed. ${plural(decisions.send + decisions.review + decisions.drop, 'address', 'addresses')} decided.</p>
        </section>
        <section aria-labelledby="rows-h"><h2 id="rows-h">First results</h2>${previewSection(preview.items)}</section>
        <section aria-labelledby="dl-h"><h2 id="dl-h">Downloads</h2>${downloadsSection(job, downloadLinks(cc.api, job._id))}</section>
        <section aria-labelledby="hook-h"><h2 id="hook-h">Webhook</h2>${webhookSection(job)}</section>
        <section aria-labelledby="cancel-h"><h2 id="cancel-h">Cancel</h2>${cancelSection(job, csrf())}</section>`,
    };
  },
});

export const jobLiveFragment = definePage({
  method: 'get',
  path: '/lists/:jobId/live',
  access: 'anyone',
  handle: (call) =>
    liveAnswer(call, async (viewer) => {
      const job = await ownJob(call.cc, viewer.account._id, call.req.params.jobId);
      return jobRegion(job, await call.cc.api.load.current());
    }),
});
