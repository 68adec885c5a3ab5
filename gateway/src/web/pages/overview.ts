import { PLANS } from '@dv/contracts';
import { can } from '@dv/accounts';
import { badge, facts, html, postForm, select, submit } from '@dv/web';
import { count, relative } from '../format.ts';
import { definePage } from '../page.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/: where a signed-in person lands: the account, its credits and plan, what to do next,
// the latest lists, and the switches (account, sandbox).

function accountSwitcher(viewer: Viewer, csrf: string) {
  if (viewer.accounts.length < 2) return null;
  return postForm(
    '/app/switch-account',
    csrf,
    html`${select({ name: 'account', label: 'Account', value: viewer.account._id, options: viewer.accounts.map((a) => ({ value: a.id, label: `${a.name} (${a.role})` })) })}${submit('Switch', { kind: 'plain' })}`,
    { className: 'inline', label: 'Switch account' },
  );
}

function sandboxSwitch(viewer: Viewer, csrf: string) {
  return postForm(
    '/app/sandbox',
    csrf,
    html`<input type="hidden" name="on" value=${viewer.sandbox ? 'off' : 'on'} />
      <p>${viewer.sandbox ? 'The console is in sandbox mode: results are simulated and free.' : 'Try the console without using credits: sandbox mode simulates every result.'}</p>
      ${submit(viewer.sandbox ? 'Leave sandbox mode' : 'Use sandbox mode', { kind: 'plain' })}`,
    { className: 'inline', label: 'Sandbox mode' },
  );
}

export const overviewPage = definePage({
  method: 'get',
  path: '/',
  access: 'view_account',
  handle: async ({ cc, viewer, csrf }) => {
    const a = viewer.account;
    const { jobs } = await cc.api.jobs.list(a._id, undefined, 5, undefined);
    const recent = jobs.map(
      (j) => html`<li><a href=${`/app/lists/${j._id}`}>${j.label ?? j._id}</a> ${badge(j.status, j.status === 'completed' ? 'ok' : j.status === 'running' ? 'neutral' : 'warn')} ${j.mode === 'sandbox' ? badge('sandbox', 'neutral') : null}
          <span class="muted">${count(j.done)} of ${count(j.total)} · ${relative(j.created_at)}</span></li>`,
    );
    return {
      title: 'Overview',
      body: html`<h1>${a.name}</h1>
        ${a.status === 'inactive' ? html`<p class="flash flash-error" role="alert">This account is inactive: lists and checks are refused. <a href="/app/plan">See the plan page</a> to reactivate it.</p>` : null}
        ${facts([
          ['Credits', html`<strong>${count(a.credits)}</strong>`],
          ['Plan', html`<a href="/app/plan">${a.plan}</a>${PLANS[a.plan].apiAccess ? null : html` <span class="muted">(console only)</span>`}`],
          ['Your role', viewer.role],
        ])}
        <div class="actions">
          ${can(viewer.role, 'run_lists') ? html`<a class="btn btn-primary" href="/app/lists/new">Upload a list</a>` : null}
          ${can(viewer.role, 'check_addresses') ? html`<a class="btn btn-plain" href="/app/check">Check one address</a>` : null}
        </div>
        <section aria-labelledby="recent-h">
          <h2 id="recent-h">Latest lists</h2>
          ${recent.length ? html`<ul class="plain-list">${recent}</ul><p><a href="/app/lists">All lists</a></p>` : html`<p class="empty">No lists yet. Upload a CSV or a text file with one address per line.</p>`}
        </section>
        <section aria-labelledby="switch-h">
          <h2 id="switch-h">Switches</h2>
          ${accountSwitcher(viewer, csrf())} ${sandboxSwitch(viewer, csrf())}
        </section>`,
    };
  },
});
