import { isId } from '@dv/contracts';
import { html, type Node } from '@dv/web';
import type { LoadView } from '../../services/load.ts';
import { relative, utcTime } from '../format.ts';
import { countsLine, DECISION_PARTS, jobName, listJobs, LIVE_EVERY_MS, liveAnswer, progressLine, STATUS_PARTS, type ListedJob } from '../jobs.ts';
import { definePage } from '../page.ts';

// GET /app/lists: the account's lists, newest first, a page at a time (?after=<job id>, as GET
// /v1/jobs pages). While one of them runs, the list is a live region: enhance.js asks
// /app/lists/live for it again every few seconds (one indexed query, nothing kept on the server),
// and the answer stops the refresh once nothing on the page runs. Without scripts it is a page
// that is right when loaded.

function decisionsOf(job: ListedJob): Node {
  if (job.decisions) return countsLine(DECISION_PARTS(job.decisions));
  return html`<span class="muted">${job.status === 'running' ? 'counted when the list ends' : 'on the list’s page'}</span>`;
}

function jobCard(job: ListedJob, load: LoadView): Node {
  return html`<li class="job-card">
    <p class="job-title"><a href=${`/app/lists/${job._id}`}>${jobName(job)}</a></p>
    ${progressLine(job, load)}
    <dl class="job-counts">
      <div><dt>By status</dt><dd>${countsLine(STATUS_PARTS(job.counts))}</dd></div>
      <div><dt>By decision</dt><dd>${decisionsOf(job)}</dd></div>
      <div><dt>Created</dt><dd><time datetime=${job.created_at.toISOString()} title=${utcTime(job.created_at)}>${relative(job.created_at)}</time></dd></div>
    </dl>
  </li>`;
}

/** The region's content, the same markup on the page and in the live answer. */
export function jobsRegion(jobs: ListedJob[], load: LoadView, after: string | undefined): Node {
  const running = jobs.some((j) => j.status === 'running');
  const live = `/app/lists/live${after ? `?after=${after}` : ''}`;
  return html`<div id="jobs" data-live=${running ? live : undefined} data-live-ms=${running ? LIVE_EVERY_MS : undefined} data-live-done=${running ? undefined : ''}>
    <ul class="job-list">${jobs.map((j) => jobCard(j, load))}</ul>
  </div>`;
}

/** `after` as the query gives it: a job id, or nothing (anything else is ignored). */
export function afterParam(a: unknown): string | undefined {
  return typeof a === 'string' && isId('job', a) ? a : undefined;
}

export const jobsListPage = definePage({
  method: 'get',
  path: '/lists',
  access: 'run_lists',
  handle: async (call) => {
    const { cc, viewer } = call;
    const after = afterParam(call.req.query.after);
    const { jobs, next } = await listJobs(cc, viewer.account._id, after);
    const load = await cc.api.load.current();
    const pager = html`<nav class="pager" aria-label="Pages of lists">
      ${after ? html`<a href="/app/lists">Newest lists</a>` : null}
      ${next ? html`<a href=${`/app/lists?after=${next}`}>Older lists</a>` : null}
    </nav>`;
    return {
      title: 'Lists',
      body: html`<h1>Lists</h1>
        <div class="actions"><a class="btn btn-primary" href="/app/lists/new">Upload a list</a></div>
        ${jobs.length === 0 ? html`<p class="empty">${after ? 'No older lists.' : 'No lists yet. Upload a CSV or a text file with one address per line.'}</p>` : jobsRegion(jobs, load, after)}
        ${pager}`,
    };
  },
});

export const jobsLiveFragment = definePage({
  method: 'get',
  path: '/lists/live',
  access: 'anyone',
  handle: (call) =>
    liveAnswer(call, async (viewer) => {
      const after = afterParam(call.req.query.after);
      const { jobs } = await listJobs(call.cc, viewer.account._id, after);
      return jobsRegion(jobs, await call.cc.api.load.current(), after);
    }),
});
