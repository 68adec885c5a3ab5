import { field, html, submit, type VNode } from '@dv/web';
import { QUOTA_SUBJECTS, type Caller } from '../../caller.ts';
import { clientIp } from '../../client.ts';
import { performLookup } from '../../lookups.ts';
import { definePage } from '../page.ts';
import { resultView } from '../result-view.ts';

// GET /validate and /validate?record=…: the validator's permalink (validate's `source` link, and
// where the search box sends a pasted SPF or DMARC record). A GET form: the record is in the
// address, so the answer can be shared; it runs the same check as GET /v1/validate, counted alike.

function recordForm(value: string): VNode {
  return html`<form method="get" action="/validate" aria-label="Validate a record" class="search">
    ${field({ name: 'record', label: 'SPF or DMARC record', value, required: true, hint: 'For example v=spf1 include:_spf.example.com -all or v=DMARC1; p=reject', autocomplete: 'off' })}
    ${submit('Validate')}
  </form>`;
}

export const validatePage = definePage({
  method: 'get',
  path: '/validate',
  handle: async ({ ctx, req }) => {
    const record = typeof req.query.record === 'string' ? req.query.record : '';
    const title = 'Validate an SPF or DMARC record';
    if (record.trim() === '') return { title, body: html`<h1>${title}</h1>${recordForm('')}` };
    const ip = clientIp(req);
    const caller: Caller = { tier: 'anonymous', subject: QUOTA_SUBJECTS.anonymous(ip), ip };
    const env = await performLookup(ctx, caller, { tool: 'validate', record }, 'web');
    return {
      title,
      body: html`<h1>${title}</h1>
        <pre class="record">${record}</pre>
        ${resultView(env, `/v1/validate?record=${encodeURIComponent(record)}`, ctx.now())}
        <h2>Validate another record</h2>
        ${recordForm('')}`,
    };
  },
});
