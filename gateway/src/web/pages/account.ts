import { can, generateWebhookSecret, updateAccount } from '@dv/accounts';
import { consoleLimits, FREE_PLAN_MONTHLY_CREDITS, PLANS, type PlanLimits } from '@dv/contracts';
import { badge, copyable, facts, html, postForm, stackedColumns, submit, type Node } from '@dv/web';
import { count, utcDate } from '../format.ts';
import { confirmForm } from '../forms.ts';
import { definePage, type PageCall } from '../page.ts';
import { creditsUsedThisMonth, monthStart, nextMonthStart, type DailyUsage } from '../usage.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/account: what GET /v1/account says, for people: the account, its credits and this
// month's use, today's use against the daily cap, the limits in the console and on the API, the
// last 30 days of results by day and status, where completion emails go, and (owners only) the
// webhook secret, hidden until asked for, with its signing recipe. POST /app/account rotates it.

const REVEAL = 'webhook-secret';

function limitFacts(l: PlanLimits): Node {
  return facts([
    ['Addresses per list', count(l.emailsPerJob)],
    ['Addresses a day', count(l.emailsPerDay)],
    ['Lists at once', count(l.concurrentJobs)],
    ['Single checks at once', count(l.singleChecksInFlight)],
  ]);
}

function creditsSection(v: Viewer, usedThisMonth: number, usedToday: number): Node {
  const a = v.account;
  const now = new Date();
  const reset =
    a.plan === 'free'
      ? html`Topped up to ${FREE_PLAN_MONTHLY_CREDITS} credits on ${utcDate(nextMonthStart(now))} (00:00 UTC), never above.`
      : html`Credits on a paid plan do not expire: there is no monthly reset.`;
  const cap = consoleLimits(a.plan, a.limits).emailsPerDay;
  return html`<section aria-labelledby="credits-h">
    <h2 id="credits-h">Credits and use</h2>
    ${facts([
      ['Credit balance', html`<strong>${count(a.credits)}</strong>`],
      ['Used this month', html`${count(usedThisMonth)} <span class="muted">(charged minus refunded since ${utcDate(monthStart(now))})</span>`],
      ['Reset', reset],
      ['Today', html`${count(usedToday)} of ${count(cap)} addresses <span class="muted">(the daily cap starts again at 00:00 UTC)</span>`],
    ])}
  </section>`;
}

function limitsSection(v: Viewer): Node {
  const a = v.account;
  return html`<section aria-labelledby="limits-h">
    <h2 id="limits-h">Limits</h2>
    <h3>In the console</h3>
    ${limitFacts(consoleLimits(a.plan, a.limits))}
    <h3>On the API</h3>
    ${PLANS[a.plan].apiAccess
      ? html`${limitFacts(a.limits)}<p class="muted">And ${count(a.limits.requestsPerMinute)} requests a minute per key.</p>`
      : html`<p>No API access on this plan: the API answers 403 plan_not_entitled. <a href="/app/plan">Plans with API access</a>.</p>`}
  </section>`;
}

function usageSection(u: DailyUsage): Node {
  const labels = u.days.map((d) => d.slice(5));
  const total = u.days.reduce((s, _, i) => s + u.deliverable[i]! + u.undeliverable[i]! + u.risky[i]! + u.unknown[i]!, 0);
  return html`<section aria-labelledby="usage-h">
    <h2 id="usage-h">Last 30 days</h2>
    <p>${count(total)} live results in lists and checks made in the last 30 days (UTC), by the day the list or check was made. Sandbox work is not counted.</p>
    ${stackedColumns('Results by day and status', labels, [
      { label: 'Deliverable', tone: 'ok', values: u.deliverable },
      { label: 'Undeliverable', tone: 'bad', values: u.undeliverable },
      { label: 'Risky', tone: 'warn', values: u.risky },
      { label: 'Unknown', tone: 'neutral', values: u.unknown },
    ])}
  </section>`;
}

const RECIPE = [
  'Every webhook carries X-Verify-Signature: t=<unix seconds>,v1=<hex>.',
  'v1 is the hex HMAC-SHA256, keyed with this secret, of the text "<t>." followed by the raw request body, byte for byte.',
  'Compute it over the raw bytes before parsing JSON, compare in constant time, and refuse a t more than 5 minutes from your clock.',
  'Node: createHmac("sha256", secret).update(t + ".").update(rawBody).digest("hex")',
  'Python: hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()',
];

function webhookSection(call: PageCall<Viewer>): Node {
  const { viewer: v, req } = call;
  if (!can(v.role, 'manage_webhook_secret')) return html`<section aria-labelledby="webhook-h"><h2 id="webhook-h">Webhook secret</h2><p>Only an owner of the account sees and rotates the webhook secret.</p></section>`;
  const shown = req.query.reveal === REVEAL;
  return html`<section aria-labelledby="webhook-h" id="webhook">
    <h2 id="webhook-h">Webhook secret</h2>
    <p>Webhooks (job.completed) are signed with this secret, so your receiver can tell they come from us.</p>
    ${shown ? html`${copyable(v.account.webhook_secret, 'the webhook secret')}<p><a href="/app/account#webhook">Hide the secret</a></p>` : html`<p>Hidden. <a href=${`/app/account?reveal=${REVEAL}#webhook`}>Show the webhook secret</a></p>`}
    <h3>Checking a signature</h3>
    <ol class="recipe">${RECIPE.map((line) => html`<li><code>${line}</code></li>`)}</ol>
    ${confirmForm('/app/account', call.csrf(), 'Rotate the webhook secret? Webhooks are signed with the new secret from now on; a receiver still checking with the old one refuses them.', submit('Rotate the webhook secret', { kind: 'danger' }), 'Rotate the webhook secret')}
  </section>`;
}

export const accountPage = definePage({
  method: 'get',
  path: '/account',
  access: 'view_account',
  handle: async (call) => {
    const { cc, viewer: v } = call;
    const a = v.account;
    const [usedThisMonth, usedToday, usage] = await Promise.all([creditsUsedThisMonth(cc.api.db, a._id), cc.api.limits.usedToday(a._id), cc.usage.get(a._id)]);
    return {
      title: 'Account',
      body: html`<h1>${a.name}</h1>
        ${facts([
          ['Status', a.status === 'active' ? badge('active', 'ok') : html`${badge('inactive', 'bad')} <a href="/app/plan#inactive-h">How to reactivate</a>`],
          ['Plan', html`<a href="/app/plan">${a.plan}</a>`],
          ['Account id', html`<code>${a._id}</code>`],
          ['Completion emails go to', a.email],
        ])}
        ${creditsSection(v, usedThisMonth, usedToday)} ${limitsSection(v)} ${usageSection(usage)} ${webhookSection(call)}
        <section aria-labelledby="sessions-h">
          <h2 id="sessions-h">Sessions</h2>
          <p>Signed in on a computer you no longer use? End every session of ${v.email}, this one included.</p>
          ${postForm('/app/sign-out-everywhere', call.csrf(), submit('Sign out everywhere', { kind: 'plain' }), { label: 'Sign out everywhere' })}
        </section>`,
    };
  },
});

export const rotateWebhookSecret = definePage({
  method: 'post',
  path: '/account',
  access: 'manage_webhook_secret',
  handle: async ({ cc, viewer }) => {
    // The notify worker reads the secret from the account at each delivery, and the marks drop the
    // account from every gateway replica's cache, so GET /v1/account answers the new one at once.
    await updateAccount(cc.api.db, viewer.account._id, { webhook_secret: generateWebhookSecret() }, cc.api.marks);
    return { redirect: `/app/account?reveal=${REVEAL}#webhook`, flash: { kind: 'ok', text: 'The webhook secret was rotated: webhooks are signed with the new secret from now on.' } };
  },
});
