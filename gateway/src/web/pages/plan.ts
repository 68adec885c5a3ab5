import { consoleLimits, PLAN_NAMES, PLAN_SUMMARIES, PLANS, type PlanName } from '@dv/contracts';
import { badge, facts, html, table } from '@dv/web';
import { count } from '../format.ts';
import { definePage } from '../page.ts';

// GET /app/plan: every plan and what it gives (API access, what the console may run, job size,
// jobs at once), the account's own marked, and how to move: plans and an account's status are
// set by the platform's operator with the admin CLI, so a customer asks their account manager.
// This is the page `upgrade_url` of the API's plan_not_entitled points to.

interface PlanRow {
  name: PlanName;
  current: boolean;
}

function apiCell(name: PlanName) {
  const p = PLANS[name];
  return p.apiAccess ? html`Yes: ${count(p.limits.requestsPerMinute)} requests a minute, ${count(p.limits.emailsPerDay)} addresses a day` : html`No`;
}

const COLUMNS = [
  { header: 'Plan', cell: (r: PlanRow) => html`<strong>${r.name}</strong>${r.current ? html` ${badge('your plan', 'ok')}` : null}` },
  { header: 'What it gives', cell: (r: PlanRow) => PLAN_SUMMARIES[r.name] },
  { header: 'API access', cell: (r: PlanRow) => apiCell(r.name) },
  { header: 'Console: addresses a day', numeric: true, cell: (r: PlanRow) => count(consoleLimits(r.name, PLANS[r.name].limits).emailsPerDay) },
  { header: 'Addresses per list', numeric: true, cell: (r: PlanRow) => count(consoleLimits(r.name, PLANS[r.name].limits).emailsPerJob) },
  { header: 'Lists at once', numeric: true, cell: (r: PlanRow) => count(consoleLimits(r.name, PLANS[r.name].limits).concurrentJobs) },
];

export const planPage = definePage({
  method: 'get',
  path: '/plan',
  access: 'view_account',
  handle: async ({ viewer }) => {
    const a = viewer.account;
    const rows: PlanRow[] = PLAN_NAMES.map((name) => ({ name, current: name === a.plan }));
    return {
      title: 'Plan',
      body: html`<h1>Plans</h1>
        <p class="lead">${a.name} is on the <strong>${a.plan}</strong> plan${PLANS[a.plan].apiAccess ? '.' : ', which has no API access: the console works, the API answers 403 plan_not_entitled.'}</p>
        ${facts([['Account', a.name], ['Account id', html`<code>${a._id}</code>`], ['Plan', a.plan], ['Status', a.status]])}
        ${table('Every plan and what it gives', COLUMNS, rows, 'No plans.')}
        <section aria-labelledby="move-h">
          <h2 id="move-h">Changing plan</h2>
          <p>Plans are changed by the platform's operator, not on this page. To move to another plan, write to your account manager (or the operator of this service) naming the account id <code>${a._id}</code> and the plan you want. The change applies at once, to the console and to the API keys; credits stay as they are.</p>
          <p>Operators change it with the admin CLI: <code>npm run admin -- account:plan --account ${a._id} --plan PLAN</code> (PLAN one of ${PLAN_NAMES.join(', ')}).</p>
        </section>
        <section aria-labelledby="inactive-h">
          <h2 id="inactive-h">Inactive accounts</h2>
          ${a.status === 'inactive' ? html`<p class="flash flash-error" role="alert">${a.name} is inactive now.</p>` : null}
          <p>An inactive account keeps its lists, results, members and credits, but its API keys are refused (403 account_inactive) and it runs no new lists or checks. Accounts are made inactive by the operator (for example an unpaid invoice or at the owner's request).</p>
          <p>To reactivate it, ask your account manager or the operator; they run <code>npm run admin -- account:status --account ${a._id} --status active</code>, and the account works again from the next request.</p>
        </section>`,
    };
  },
});
