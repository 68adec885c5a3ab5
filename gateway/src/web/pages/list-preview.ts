import { facts, html, select, submit, table, type Node } from '@dv/web';
import { consoleCaller } from '../caller.ts';
import { count, plural } from '../format.ts';
import { deadlineLabel } from '../list-options.ts';
import { readUpload, refusals, standingOf, uploadGone, type ReadUpload, type Refusal, type Standing } from '../list-preview.ts';
import { definePage } from '../page.ts';
import type { StoredUpload } from '../uploads.ts';
import type { Viewer } from '../viewer.ts';
import { listConfirmForm } from './list-confirm.ts';

// GET /app/lists/new/<uploadId>: what the uploaded file holds, read as the API would read it (the
// first rows, the address column, rows, invalid rows, duplicates, unique valid addresses), what
// the job costs against the balance, and, before any button, whatever would refuse it. Values
// from the file are hostile: they are only ever text here.

function columnChooser(up: StoredUpload, r: ReadUpload): Node {
  const header = r.read.header;
  if (!header) return null;
  const options = [...(r.read.emailColumn === null ? [{ value: '', label: 'Choose the column…' }] : []), ...header.map((h, i) => ({ value: h, label: h || `Column ${i + 1} (no name)` }))];
  return html`<form method="get" action=${`/app/lists/new/${up.id}`} class="inline" aria-label="Address column">
    ${select({ name: 'column', label: 'Column holding the addresses', value: r.read.emailColumn ?? '', options })}
    ${submit('Use this column', { kind: 'plain' })}
  </form>`;
}

function sampleTable(r: ReadUpload): Node {
  const header = r.read.header ?? ['Address'];
  const columns = header.map((h, i) => ({ header: h || `Column ${i + 1}`, cell: (row: string[]) => row[i] ?? '' }));
  return table(`The first ${plural(r.read.sample.length, 'row')} of the file`, columns, r.read.sample, 'The file has no data rows.');
}

function costFacts(s: Standing, r: ReadUpload): Node {
  const sum = r.intake.summary;
  return facts([
    ['Rows with an address', count(sum.uniqueTotal + sum.duplicates + sum.invalidTotal)],
    ['Invalid', count(sum.invalidTotal)],
    ['Duplicates', count(sum.duplicates)],
    ['Unique valid addresses', html`<strong>${count(sum.uniqueTotal)}</strong>`],
    ['Cost', s.sandbox ? 'Free: sandbox mode simulates every result' : `${plural(sum.uniqueTotal, 'credit')} of ${count(s.credits)} available`],
    ['Limits', `${count(s.perJob)} addresses per list, ${plural(s.concurrent, 'list')} at once (${count(s.running)} running)${s.sandbox ? '' : `, ${count(s.perDay)} a day (${count(s.usedToday)} used today)`}`],
  ]);
}

function optionFacts(up: StoredUpload, viewer: Viewer): Node {
  const o = up.options;
  return facts([
    ['File', `${up.fileName} (${up.format.toUpperCase()}, ${count(Math.ceil(up.size / 1024))} KB)`],
    ['Label', o.label ?? '—'],
    ['Email when finished', o.notifyEmail ? `Yes, to ${viewer.account.email}` : 'No'],
    ['Webhook', o.webhookUrl ?? '—'],
    ['Deadline', deadlineLabel(o.maxWallSeconds)],
  ]);
}

function refusalList(list: Refusal[]): Node {
  return html`<section class="refusals" aria-labelledby="refused-h" role="alert">
    <h2 id="refused-h">This list cannot start now</h2>
    <ul>${list.map((r) => html`<li>${r.why} ${r.todo} <a href=${r.href}>${r.link}</a>.</li>`)}</ul>
  </section>`;
}

export const listPreviewPage = definePage({
  method: 'get',
  path: '/lists/new/:uploadId',
  access: 'run_lists',
  handle: async ({ cc, req, viewer, csrf }) => {
    const up = await cc.uploads.get(String(req.params.uploadId), { accountId: viewer.account._id, personId: viewer.personId });
    if (!up) throw uploadGone();
    const caller = consoleCaller(viewer);
    const wanted = typeof req.query.column === 'string' && req.query.column !== '' ? req.query.column : undefined;
    const r = await readUpload(cc, up, caller, wanted);
    const s = await standingOf(cc, viewer, caller, r.intake.summary.uniqueTotal);
    const noColumn = r.read.header !== null && r.read.emailColumn === null;
    const refused = noColumn ? [] : refusals(s);
    return {
      title: 'Check the list before it starts',
      body: html`<h1>Check the list before it starts</h1>
        ${noColumn ? html`<p class="flash flash-error" role="alert">No column looks like it holds email addresses. Choose the column that does.</p>` : null}
        ${columnChooser(up, r)}
        ${sampleTable(r)}
        ${noColumn ? null : costFacts(s, r)}
        <h2>Options</h2>
        ${optionFacts(up, viewer)}
        ${refused.length ? refusalList(refused) : null}
        ${noColumn || refused.length ? null : listConfirmForm(up, r, s, csrf())}
        <p><a href="/app/lists/new">Upload another file instead</a></p>`,
    };
  },
});
