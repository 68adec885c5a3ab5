import { field, html, postForm, select, submit } from '@dv/web';
import { GATEWAY_DEFAULTS as D } from '../../defaults.ts';
import { DEADLINES, readOptions, type OptionErrors } from '../list-options.ts';
import { receiveUpload, WHAT_TO_UPLOAD } from '../list-receive.ts';
import { definePage } from '../page.ts';
import type { PageView } from '../render.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/lists/new: the upload form (a file, CSV or TXT, and the job's options). POST: the file
// streams into the upload store (web/uploads.ts) and the browser goes on to the preview, where
// nothing has been charged yet; the job starts only at its confirm.

const MAX_MB = D.uploadMaxBytes / 1024 / 1024;

function uploadForm(viewer: Viewer, csrf: string, values: Record<string, string> = {}, errors: OptionErrors = {}) {
  return postForm(
    '/app/lists/new',
    csrf,
    html`<div class="drop-zone" data-drop-zone>
        ${field({ name: 'file', label: 'List file', type: 'file', required: true, accept: '.csv,.txt,text/csv,text/plain', hint: `CSV with a header row, or TXT with one address per line; UTF-8; up to ${MAX_MB} MB.` })}
      </div>
      ${field({ name: 'label', label: 'Label (optional)', value: values.label, error: errors.label, hint: 'A name to find the list by later.' })}
      <div class="field field-check">
        <input id="f-notify_email" type="checkbox" name="notify_email" value="on" checked=${values.notify_email === 'on'} />
        <label for="f-notify_email">Email me when it finishes, at the account's address <strong>${viewer.account.email}</strong></label>
      </div>
      ${field({ name: 'webhook_url', label: 'Webhook URL (optional)', type: 'url', value: values.webhook_url, error: errors.webhook_url, hint: 'An https URL that receives a signed POST when the list is done.' })}
      ${select({ name: 'max_wall_seconds', label: 'Deadline', value: values.max_wall_seconds ?? '', options: DEADLINES, hint: 'Addresses still unchecked at the deadline end as unknown and their credits are refunded.' })}
      ${submit('Upload and preview')}`,
    { multipart: true, label: 'Upload a list', className: 'upload-form' },
  );
}

export function uploadView(viewer: Viewer, csrf: string, values?: Record<string, string>, errors?: OptionErrors, status?: number): PageView {
  return {
    title: 'Upload a list',
    status,
    scripts: ['upload.js'],
    body: html`<h1>Upload a list</h1>
      <p class="lead">Nothing is charged yet: the next page shows what the file holds and what it will cost, and the list starts only when you confirm.</p>
      ${errors && Object.keys(errors).length ? html`<p class="flash flash-error" role="alert">Some options need a fix (below); choose the file again too.</p>` : null}
      ${uploadForm(viewer, csrf, values, errors)}
      <p class="muted">${WHAT_TO_UPLOAD} <a href="/app/lists">Your lists</a></p>`,
  };
}

export const listNewPage = definePage({
  method: 'get',
  path: '/lists/new',
  access: 'run_lists',
  handle: async ({ viewer, csrf }) => uploadView(viewer, csrf()),
});

export const listNewUpload = definePage({
  method: 'post',
  path: '/lists/new',
  access: 'run_lists',
  handle: async ({ cc, req, viewer, csrf }) => {
    const owner = { accountId: viewer.account._id, personId: viewer.personId };
    const got = await receiveUpload(req, cc.uploads, owner, D.uploadMaxBytes);
    const { options, errors } = readOptions(got.fields, cc.api.config.WEBHOOK_ALLOW_HTTP_LOOPBACK);
    if (Object.keys(errors).length) {
      await cc.uploads.discard(got.id, owner);
      return uploadView(viewer, csrf(), got.fields, errors, 422);
    }
    await cc.uploads.finish({ ...owner, id: got.id, fileName: got.fileName, format: got.format, size: got.size, options, attempt: 0 });
    return { redirect: `/app/lists/new/${got.id}` };
  },
});
