import type { JobDoc } from '@dv/contracts';
import nodemailer, { type Transporter } from 'nodemailer';
import { NOTIFY_DEFAULTS } from './defaults.ts';
import type { DecisionCounts } from './event.ts';

// The completion email: a summary of the job (counts by status and by decision) and the signed CSV
// link, sent through the configured SMTP relay to the account's own address and nowhere else.
// Rendering is pure; sending is one nodemailer call.

export interface CompletionEmailContent {
  job: Pick<JobDoc, '_id' | 'label' | 'total' | 'done' | 'mode' | 'status' | 'completed_at'>;
  counts: JobDoc['counts'];
  decisions: DecisionCounts;
  csvUrl: string;
  /** When the CSV link stops working (shown in the message). */
  linkExpiresAt?: Date | null;
  /** The API's public base address, for the results endpoint mentioned in the message. */
  publicBaseUrl?: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const STATUS_ORDER = ['deliverable', 'undeliverable', 'risky', 'unknown'] as const;
const DECISION_ORDER = ['send', 'review', 'drop'] as const;
const DECISION_HINT: Record<(typeof DECISION_ORDER)[number], string> = { send: 'safe to send', review: 'unprovable or no verdict yet', drop: 'will bounce or should not be mailed' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const utc = (d: Date) => `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
// A subject line is a header: a label carrying CR/LF or other controls must not shape it.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 120);

export function renderCompletionEmail(c: CompletionEmailContent): RenderedEmail {
  const name = c.job.label ? `"${oneLine(c.job.label)}"` : c.job._id;
  const subject = `Verification finished: ${name} (${c.job.total} ${c.job.total === 1 ? 'address' : 'addresses'})`;
  const width = Math.max(...STATUS_ORDER.map((s) => s.length)) + 2;
  const statusLines = STATUS_ORDER.map((s) => `  ${s.padEnd(width)}${c.counts[s] ?? 0}`);
  const decisionLines = DECISION_ORDER.map((d) => `  ${d.padEnd(width)}${c.decisions[d]}  (${DECISION_HINT[d]})`);
  const until = c.linkExpiresAt ? ` (the link works until ${utc(c.linkExpiresAt)})` : '';
  const api = c.publicBaseUrl ? `${c.publicBaseUrl.replace(/\/+$/, '')}/v1/jobs/${c.job._id}/results` : `/v1/jobs/${c.job._id}/results`;
  const sandbox = c.job.mode === 'sandbox' ? ['', 'This job ran with a sandbox key: the results are simulated.'] : [];
  const text = [
    `Your verification job ${name} (${c.job._id}) has finished: ${c.job.done} of ${c.job.total} addresses processed.`,
    ...sandbox,
    '',
    'By status:',
    ...statusLines,
    '',
    'By decision:',
    ...decisionLines,
    '',
    `Download the results as CSV${until}:`,
    c.csvUrl,
    '',
    `The results are also available through the API: GET ${api}`,
  ].join('\n');

  const row = (k: string, v: number, hint = '') => `<tr><td>${escapeHtml(k)}</td><td style="text-align:right">${v}</td>${hint ? `<td>${escapeHtml(hint)}</td>` : ''}</tr>`;
  const html =
    `<p>Your verification job <strong>${escapeHtml(name)}</strong> (${escapeHtml(c.job._id)}) has finished: ${c.job.done} of ${c.job.total} addresses processed.</p>` +
    (c.job.mode === 'sandbox' ? '<p>This job ran with a sandbox key: the results are simulated.</p>' : '') +
    `<h3>By status</h3><table>${STATUS_ORDER.map((s) => row(s, c.counts[s] ?? 0)).join('')}</table>` +
    `<h3>By decision</h3><table>${DECISION_ORDER.map((d) => row(d, c.decisions[d], DECISION_HINT[d])).join('')}</table>` +
    `<p><a href="${escapeHtml(c.csvUrl)}">Download the results as CSV</a>${escapeHtml(until)}.</p>` +
    `<p>The results are also available through the API: <code>GET ${escapeHtml(api)}</code></p>`;
  return { subject, text, html };
}

/** A nodemailer transport for an SMTP relay URL (`smtp://user:pass@host:port` or `smtps://…`). */
export function createMailTransport(relayUrl: string, timeoutMs: number = NOTIFY_DEFAULTS.smtpTimeoutMs): Transporter {
  const url = new URL(relayUrl);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('the SMTP relay URL must use smtp: or smtps:');
  const secure = url.protocol === 'smtps:';
  return nodemailer.createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

export interface SendCompletionEmailOptions extends CompletionEmailContent {
  /** A nodemailer transport, or an SMTP relay URL (a transport is made and closed for this one message). */
  transport: Transporter | string;
  from: string;
  /** The account's own address (Account.email): the only recipient ever. */
  to: string;
}

/**
 * Sends the message. Its Message-ID is derived from the job id, so if a crash makes the worker
 * send it twice, mail clients can recognise the copy.
 */
export async function sendCompletionEmail(opts: SendCompletionEmailOptions): Promise<{ messageId: string }> {
  const transport = typeof opts.transport === 'string' ? createMailTransport(opts.transport) : opts.transport;
  const domain = /@([^>\s]+)>?\s*$/.exec(opts.from)?.[1] ?? 'notify.invalid';
  const messageId = `<${opts.job._id}.completed@${domain}>`;
  try {
    await transport.sendMail({ from: opts.from, to: opts.to, messageId, ...renderCompletionEmail(opts) });
    return { messageId };
  } finally {
    if (typeof opts.transport === 'string') transport.close();
  }
}
