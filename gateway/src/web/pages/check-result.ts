import { COLLECTIONS, isId, itemId, type ItemEvidence, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { badge, facts, html, type Node } from '@dv/web';
import { GATEWAY_DEFAULTS as D } from '../../defaults.ts';
import { resultOfItem, type ResultObject } from '../../services/results.ts';
import type { ConsoleContext } from '../context.ts';
import { duration, relative, utcTime } from '../format.ts';
import { definePage, notFound } from '../page.ts';
import type { Viewer } from '../viewer.ts';
import { checkForm } from './check.ts';

// GET /app/check/<job>: one check's result: status, score, decision and why, and the evidence
// (MX host, provider, the SMTP reply that decided, the catch-all probe). While the check runs the
// page says so in a live region that refreshes itself (check-live.ts); with JavaScript off the
// refresh link does the same. Every value from a mail server is text, never markup.

const STATUS_TONE = { deliverable: 'ok', undeliverable: 'bad', risky: 'warn', unknown: 'neutral' } as const;
const ACTION_TONE = { send: 'ok', review: 'warn', drop: 'bad' } as const;
const ACTION_WORDS = { send: 'Send', review: 'Review before sending', drop: 'Do not send' } as const;
const CATCH_ALL_WORDS: Record<ItemEvidence['catch_all_probe'], string> = {
  accepted: 'Run: the server accepted a random address too (the domain accepts all mail)',
  refused: 'Run: the server refused a random address, so its yes means something',
  not_run: 'Not run',
};

export interface SingleCheck {
  job: JobDoc;
  item: JobItemDoc | null;
}

/** The account's single check `jobId`, or a not-found page. */
export async function loadCheck(cc: ConsoleContext, viewer: Viewer, jobId: string): Promise<SingleCheck> {
  if (!isId('job', jobId)) throw notFound('This check');
  // Both reads at once (a live region asks every 2 s); the item counts only if the job is the account's.
  const [job, item] = await Promise.all([cc.reads.job(viewer.account._id, jobId), cc.api.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).findOne({ _id: itemId(jobId, 0) })]);
  if (!job || job.kind !== 'single') throw notFound('This check');
  return { job, item };
}

function retryWords(r: ResultObject): Node {
  const s = r.decision?.retry_after_seconds;
  if (r.status !== 'unknown' || s == null) return null;
  return html`<p>Worth checking again in about ${duration(s)} (after ${utcTime(new Date(Date.parse(r.checked_at ?? '') + s * 1000))}); sooner is likely to get the same answer.</p>`;
}

function replyText(e: ItemEvidence | null | undefined): Node {
  if (!e?.reply) return html`<span class="muted">Not recorded for this check</span>`;
  const { code, enhanced, text } = e.reply;
  return html`<code class="smtp-reply">${[String(code), enhanced, text].filter(Boolean).join(' ')}</code>`;
}

function evidenceFacts(r: ResultObject, e: ItemEvidence | null | undefined): Node {
  const catchAll = e ? CATCH_ALL_WORDS[e.catch_all_probe] : r.flags?.catch_all ? 'The domain accepts all mail' : 'Not recorded for this check';
  return facts([
    ['MX host', e?.mx_host ? html`<code>${e.mx_host}</code>` : html`<span class="muted">Not recorded for this check</span>`],
    ['Provider', r.domain?.mx_provider ?? '—'],
    ['SMTP reply that decided', replyText(e)],
    ['Catch-all probe', catchAll],
    ['Attempts', String(r.attempts ?? 0)],
  ]);
}

export function resultView(job: JobDoc, item: JobItemDoc): Node {
  const r = resultOfItem(item);
  const action = r.decision?.action ?? 'review';
  return html`<div class="check-result" data-live-done="">
    <h1>${r.email}</h1>
    <p class="verdict">${badge(r.status ?? 'unknown', STATUS_TONE[r.status ?? 'unknown'])} ${badge(ACTION_WORDS[action], ACTION_TONE[action])}${job.mode === 'sandbox' ? html` ${badge('sandbox', 'neutral')}` : null}</p>
    ${facts([
      ['Status', `${r.status} (${r.sub_status})`],
      ['Score', `${r.score} of 100`],
      ['Decision', ACTION_WORDS[action]],
      ['Why', r.decision?.why ?? '—'],
      ['What we found', r.reason ?? '—'],
      ['Checked', utcTime(r.checked_at)],
    ])}
    ${retryWords(r)}
    ${r.did_you_mean ? html`<p>Did you mean <strong>${r.did_you_mean}</strong>?</p>` : null}
    <h2>Evidence</h2>
    ${evidenceFacts(r, item.evidence)}
  </div>`;
}

/** The region's content: the result, or "still running" with a way to look again. */
export function checkRegion(check: SingleCheck): Node {
  const { job, item } = check;
  if (item?.state === 'done' && item.result) return resultView(job, item);
  if (job.status !== 'running') {
    return html`<div data-live-done=""><h1>${item?.email ?? 'This check'}</h1><p class="lead">This check ended without a result (${job.status}). Nothing was charged for it; check the address again.</p></div>`;
  }
  return html`<div><h1>${item?.email ?? 'Checking'}</h1>
    <p class="lead" role="status">Still checking: started ${relative(job.created_at)}. Some mail servers answer slowly or ask us to come back later.</p>
    <p>This page updates by itself. <a href=${`/app/check/${job._id}`}>Refresh</a> to look again.</p></div>`;
}

export const checkResultPage = definePage({
  method: 'get',
  path: '/check/:jobId',
  access: 'check_addresses',
  handle: async ({ cc, req, viewer, csrf }) => {
    const check = await loadCheck(cc, viewer, String(req.params.jobId));
    const done = check.item?.state === 'done' || check.job.status !== 'running';
    const region = checkRegion(check);
    return {
      title: `Check of ${check.item?.email ?? 'an address'}`,
      body: html`${done ? region : html`<div data-live=${`/app/check/${check.job._id}/live`} data-live-ms=${String(D.consoleLiveIntervalMs)} aria-live="polite">${region}</div>`}
        <h2>Check another address</h2>
        ${checkForm(csrf())}`,
    };
  },
});
