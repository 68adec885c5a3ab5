import { ApiError } from '@dv/runtime';
import { html, postForm, submit, type Node } from '@dv/web';
import { fingerprint } from '../../services/idempotency.ts';
import { startListJob, type JobCreatedResponse } from '../../services/list-job.ts';
import { consoleCaller } from '../caller.ts';
import { plural } from '../format.ts';
import { readUpload, uploadGone, type ReadUpload, type Standing } from '../list-preview.ts';
import { definePage, PageError } from '../page.ts';
import type { StoredUpload } from '../uploads.ts';

// POST /app/lists/new/<uploadId>: starts the job exactly as POST /v1/jobs does (the same read of
// the file, the same startListJob), under an Idempotency-Key made from the upload id: a double
// click or a replayed form charges once and lands on the same job. A refusal (credits, running
// lists, today's cap) is a page in words, and raises the upload's attempt so that confirming
// again after buying credits or waiting is a new request rather than the refusal replayed.

const ADVICE: Readonly<Record<string, string>> = {
  insufficient_credits: 'Buy credits or change plan on the plan page (/app/plan), then confirm again.',
  too_many_active_jobs: 'Wait for a running list to finish (see /app/lists), then confirm again; this upload waits 30 minutes.',
  daily_cap_reached: 'Confirm again after 00:00 UTC, or upload a smaller file.',
  job_too_large: 'Split the list into smaller files, or see the plan page (/app/plan).',
};

export function listConfirmForm(up: StoredUpload, r: ReadUpload, s: Standing, csrf: string): Node {
  const unique = r.intake.summary.uniqueTotal;
  return postForm(
    `/app/lists/new/${up.id}`,
    csrf,
    html`<input type="hidden" name="column" value=${r.read.emailColumn ?? ''} />
      ${submit(s.sandbox ? `Start the list (${plural(unique, 'address', 'addresses')}, free in sandbox)` : `Start the list (${plural(unique, 'credit')})`)}`,
    { label: 'Start the list' },
  );
}

function refusedPage(status: number, code: string, detail: string): PageError {
  return new PageError(status, 'The list did not start', `${detail} ${ADVICE[code] ?? ''}`.trim());
}

export const listConfirm = definePage({
  method: 'post',
  path: '/lists/new/:uploadId',
  access: 'run_lists',
  handle: async ({ cc, req, viewer }) => {
    const id = String(req.params.uploadId);
    const owner = { accountId: viewer.account._id, personId: viewer.personId };
    const up = await cc.uploads.get(id, owner);
    if (!up) {
      const earlier = await cc.uploads.startedJob(id, owner);
      if (earlier) return { redirect: `/app/lists/${earlier}` };
      throw uploadGone();
    }
    const caller = consoleCaller(viewer);
    const column = (req.body as Record<string, unknown>).column;
    const r = await readUpload(cc, up, caller, typeof column === 'string' && column !== '' ? column : undefined);
    if (r.read.header !== null && r.read.emailColumn === null) throw new PageError(422, 'Choose the address column', 'No column of the file was chosen as the one holding the addresses. Go back to the preview and choose it.');
    const o = up.options;
    const request = {
      intake: r.intake,
      label: o.label,
      maxAgeDays: null,
      forceFresh: false,
      notifyEmail: o.notifyEmail,
      webhookUrl: o.webhookUrl,
      maxWallSeconds: o.maxWallSeconds,
      fp: fingerprint('POST', '/app/lists/new', { digest: r.digest, column: r.read.emailColumn, options: o }),
    };
    let reply;
    try {
      reply = await startListJob(cc.api, caller, request, `console-upload:${up.id}:${up.attempt}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      await cc.uploads.nextAttempt(up);
      throw refusedPage(err.status, err.code, typeof err.detail === 'string' ? err.detail : 'The list was refused.');
    }
    if (reply.status !== 202) {
      // A refusal kept by the idempotency record (a second click while the first was refused).
      const body = reply.body as { code?: string; detail?: unknown };
      throw refusedPage(reply.status, body.code ?? '', typeof body.detail === 'string' ? body.detail : 'The list was refused.');
    }
    const job = reply.body as JobCreatedResponse;
    await cc.uploads.started(up, job.job_id);
    return { redirect: `/app/lists/${job.job_id}`, flash: { kind: 'ok', text: `The list started: ${plural(job.accepted, 'address', 'addresses')}${job.mode === 'sandbox' ? ', simulated in sandbox mode' : `, ${plural(job.credits_charged, 'credit')} charged`}.` } };
  },
});
