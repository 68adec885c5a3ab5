import type { ErrorCode } from '@dv/contracts';
import { ApiError } from '@dv/runtime';
import { field, html, postForm, submit } from '@dv/web';
import { verifyOne, type VerifyOneOutcome } from '../../services/verify-one.ts';
import { consoleCaller } from '../caller.ts';
import { definePage, PageError, type PageCall } from '../page.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/check: one address to check; POST runs exactly what POST /v1/verify runs (the shared
// verifyOne), as the console's caller (sandbox when the session's switch is on), waits a bounded
// time and opens the result's page, which says "still running" when the wait was not enough. An
// address that is not an address is answered on the form, in words, and costs nothing.

/** Refusals of a check, said for a person: what happened (the API's words) and what to do. */
const REFUSALS: Partial<Record<ErrorCode, { title: string; advice: string }>> = {
  insufficient_credits: { title: 'Not enough credits', advice: 'Add credits on the plan page, or turn on sandbox mode on the overview to try checks free.' },
  rate_limited: { title: 'Too many checks in a minute', advice: 'Wait that long, then check again.' },
  daily_cap_reached: { title: 'Daily limit reached', advice: 'Sandbox checks are not counted; live checks can be made again after 00:00 UTC.' },
  too_many_in_flight: { title: 'Too many checks running', advice: 'Wait for a few of them to finish, then check again.' },
  account_inactive: { title: 'Account inactive', advice: 'See the plan page to reactivate it.' },
};

export function checkForm(csrf: string, value = '', error?: string) {
  return postForm(
    '/app/check',
    csrf,
    html`${field({ name: 'email', label: 'Email address', value, error, required: true, autocomplete: 'off', hint: 'One address. A live check uses 1 credit; an address with a syntax error is free.' })}
      ${submit('Check')}`,
    { label: 'Check an address' },
  );
}

function formView(call: PageCall<Viewer>, value: string, error?: string, status?: number) {
  return {
    title: 'Check an address',
    status,
    body: html`<h1>Check an address</h1>
      <p class="lead">We look up the domain's mail servers and ask them, without sending mail, whether the mailbox exists.</p>
      ${checkForm(call.csrf(), value, error)}`,
  };
}

export const checkPage = definePage({
  method: 'get',
  path: '/check',
  access: 'check_addresses',
  handle: async (call) => formView(call, ''),
});

/** The check as POST /v1/verify makes it: one request against the per-minute allowance, then verifyOne. */
async function run(call: PageCall<Viewer>, email: string): Promise<VerifyOneOutcome> {
  const api = call.cc.api;
  const caller = consoleCaller(call.viewer);
  // A person who leaves the page stops the wait, not the check: its result stays on its page.
  const gone = new AbortController();
  call.res.on('close', () => gone.abort());
  try {
    // What the API's authentication refuses before any route runs.
    if (caller.account.status !== 'active') throw new ApiError('account_inactive', 'This account is inactive, so checks are refused.');
    await api.limits.request(caller.account._id, caller.account.limits);
    const input = { email, ref: null, maxAgeDays: null, forceFresh: false, wait: api.config.CONSOLE_CHECK_WAIT_SECONDS, webhookUrl: null };
    return await verifyOne(api, caller, input, gone.signal);
  } catch (err) {
    const refusal = err instanceof ApiError ? REFUSALS[err.code] : undefined;
    if (!refusal || !(err instanceof ApiError)) throw err;
    throw new PageError(err.status, refusal.title, `${err.message} ${refusal.advice}`);
  }
}

export const checkRun = definePage({
  method: 'post',
  path: '/check',
  access: 'check_addresses',
  handle: async (call) => {
    const raw = (call.req.body as Record<string, unknown>).email;
    const email = typeof raw === 'string' ? raw.trim() : '';
    if (!email) return formView(call, '', 'Enter an email address such as jane.doe@example.com.', 400);
    if (email.length > 320) return formView(call, email.slice(0, 320), 'That is longer than any email address can be (320 characters at most).', 400);
    const out = await run(call, email);
    if (out.kind === 'queued') return { redirect: `/app/check/${out.queued.jobId}` };
    if (out.jobId) return { redirect: `/app/check/${out.jobId}` };
    // Without max_age_days the one answer without a job is a syntax error.
    return formView(call, email, `That is not an email address we can check (${out.result.reason ?? 'its syntax is wrong'}). Fix it and check again; nothing was charged.`, 400);
  },
});
