import { randomUUID } from 'node:crypto';
import type { Logger } from '@dv/runtime';
import type { Db } from 'mongodb';
import type { Transporter } from 'nodemailer';
import type { Registry } from 'prom-client';
import { NOTIFY_DEFAULTS } from './defaults.ts';
import { deliverOnce, type DeliveryResult } from './deliver.ts';
import { createMailTransport, sendCompletionEmail } from './email.ts';
import { buildJobCompletedEvent } from './event.ts';
import { maxAttempts, nextAttemptAt, webhookLadder, type Ladder } from './ladder.ts';
import { createNotifyMetrics, type NotifyMetrics } from './metrics.ts';
import { signDownloadUrl } from './signature.ts';
import { checkTarget, type Resolver } from './target.ts';
import {
  claimDueEmail,
  claimDueWebhook,
  loadAccountContact,
  loadCompletedEvent,
  loadDecisionCounts,
  markEmailsWithoutRelay,
  recordEmailAttempt,
  recordWebhookAttempt,
  type Claim,
} from './store.ts';

// The durable worker: polls MongoDB for due webhook deliveries and completion emails, claims each
// one atomically (store.ts), sends it and records the outcome on the job. Any number of workers
// (scheduler replicas) may run against one database; a restart resumes from what the job says.

export interface EmailSettings {
  /** A nodemailer transport or an SMTP relay URL (smtp://, smtps://). */
  transport: Transporter | string;
  from: string;
  /** DOWNLOAD_SIGNING_SECRET: the same key the gateway checks download links with. */
  downloadSecret: string;
  downloadLinkTtlS?: number;
}

export interface NotifyWorkerOptions {
  db: Db;
  log: Logger;
  /** Metrics are registered here (or pass `metrics` when they already exist). */
  registry?: Registry;
  metrics?: NotifyMetrics;
  /** The API's public address: results_url in the event body, CSV links in the email. */
  publicBaseUrl: string;
  ladderScale?: number;
  /** TESTS ONLY: allow http:// and loopback receivers. */
  allowHttpLoopback?: boolean;
  pollIntervalMs?: number;
  leaseMs?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  concurrency?: number;
  /** Injected resolver (tests); system DNS otherwise. */
  resolve?: Resolver;
  /** TESTS: CA trusted for https receivers. */
  ca?: string | Buffer;
  /**
   * Completion emails are sent only when this is given. Without it the worker marks each
   * notify_email job it cannot serve (`notify.unsent_reason: 'no_smtp_relay'`, a warning per job)
   * and a worker started with a relay later sends them.
   */
  email?: EmailSettings;
}

export interface NotifyWorker {
  /** Runs one pass now (claims until nothing is due); resolves with the number of items handled. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for the pass in progress. */
  stop(): Promise<void>;
}

/** What one try came to: a real POST's result, or a failure decided before any POST. */
type AttemptOutcome = Pick<DeliveryResult, 'delivered' | 'status' | 'error' | 'outcome'>;

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

/** What the handlers share: the options, the worker's logger and metrics, the retry ladder. */
interface WorkerScope {
  opts: NotifyWorkerOptions;
  log: Logger;
  metrics: NotifyMetrics | null;
  ladder: Ladder;
  /** The transport this worker made from a relay URL (closed on stop), null when given one or none. */
  ownTransport: Transporter | null;
}

async function handleWebhook(scope: WorkerScope, claim: Claim): Promise<void> {
  const { opts, log, metrics, ladder } = scope;
  const { job, attempt } = claim;
  const hook = job.webhook!;
  const record = async (r: AttemptOutcome, permanent = false) => {
    const at = new Date();
    const next = r.delivered || permanent ? null : nextAttemptAt(ladder, attempt, at);
    const gaveUp = !r.delivered && next === null;
    const error = gaveUp && r.error ? `gave up after ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}: ${r.error}` : r.error;
    const kept = await recordWebhookAttempt(opts.db, claim, { at, delivered: r.delivered, status: r.status, error, nextAttemptAt: next, gaveUp });
    metrics?.webhookAttempts.inc({ outcome: r.outcome });
    if (gaveUp) metrics?.webhookGaveUp.inc();
    if (!kept) log.warn({ jobId: job._id, attempt }, 'webhook lease lost before the outcome was written');
    else if (gaveUp) log.warn({ jobId: job._id, attempt, error }, 'webhook delivery gave up');
    else log.info({ jobId: job._id, attempt, outcome: r.outcome, status: r.status, next_attempt_at: next }, r.delivered ? 'webhook delivered' : 'webhook attempt failed');
  };

  const account = await loadAccountContact(opts.db, job.account_id);
  if (!account) return record({ delivered: false, status: null, error: 'the account no longer exists', outcome: 'refused' }, true);
  const event = await loadCompletedEvent(opts.db, job._id);
  if (!event) return record({ delivered: false, status: null, error: 'no job.completed event recorded for this job', outcome: 'refused' });
  const decisions = job.kind === 'list' ? await loadDecisionCounts(opts.db, job._id) : undefined;
  const body = JSON.stringify(buildJobCompletedEvent(job, event, { publicBaseUrl: opts.publicBaseUrl, ...(decisions ? { decisions } : {}) }));
  const target = await checkTarget(hook.url, { allowHttpLoopback: opts.allowHttpLoopback, resolve: opts.resolve });
  if (!target.ok) return record({ delivered: false, status: null, error: `refused: ${target.detail}`, outcome: 'refused' }, target.permanent);
  const result = await deliverOnce(target, body, account.webhook_secret, { timeoutMs: opts.timeoutMs, maxResponseBytes: opts.maxResponseBytes, ca: opts.ca });
  metrics?.webhookDuration.observe({ outcome: result.outcome }, result.durationMs / 1000);
  await record(result);
}

async function handleEmail(scope: WorkerScope, claim: Claim, email: EmailSettings): Promise<void> {
  const { opts, log, metrics, ladder } = scope;
  const { job, attempt } = claim;
  const at = () => new Date();
  const fail = async (error: string, permanent = false) => {
    const now = at();
    const next = permanent || attempt >= NOTIFY_DEFAULTS.emailMaxAttempts ? null : nextAttemptAt(ladder, attempt, now);
    const gaveUp = next === null;
    await recordEmailAttempt(opts.db, claim, { at: now, sent: false, error: gaveUp ? `gave up after ${attempt} tries: ${error}` : error, nextAttemptAt: next, gaveUp });
    metrics?.emails.inc({ outcome: gaveUp ? 'gave_up' : 'failed' });
    log.warn({ jobId: job._id, attempt, error, next_attempt_at: next }, gaveUp ? 'completion email gave up' : 'completion email failed');
  };
  const account = await loadAccountContact(opts.db, job.account_id);
  if (!account?.email) return fail('the account has no email address', true);
  const nowS = Math.floor(Date.now() / 1000);
  const expS = nowS + (email.downloadLinkTtlS ?? NOTIFY_DEFAULTS.downloadLinkTtlS);
  try {
    await sendCompletionEmail({
      transport: scope.ownTransport ?? email.transport,
      from: email.from,
      to: account.email,
      job,
      counts: job.counts,
      decisions: await loadDecisionCounts(opts.db, job._id),
      csvUrl: signDownloadUrl(opts.publicBaseUrl, job._id, email.downloadSecret, expS),
      linkExpiresAt: new Date(expS * 1000),
      publicBaseUrl: opts.publicBaseUrl,
    });
  } catch (err) {
    return fail(describe(err));
  }
  const kept = await recordEmailAttempt(opts.db, claim, { at: at(), sent: true, error: null, nextAttemptAt: null, gaveUp: false });
  metrics?.emails.inc({ outcome: 'sent' });
  log.info({ jobId: job._id, attempt, kept }, 'completion email sent');
}

/** Claims up to `concurrency` items of one kind and handles them together, until none is due (or the worker stops). */
async function drain(scope: WorkerScope, concurrency: number, stopping: () => boolean, claim: () => Promise<Claim | null>, handle: (c: Claim) => Promise<void>): Promise<number> {
  let handled = 0;
  for (;;) {
    const batch: Claim[] = [];
    while (batch.length < concurrency && !stopping()) {
      const c = await claim();
      if (!c) break;
      batch.push(c);
    }
    if (batch.length === 0) return handled;
    await Promise.all(
      batch.map((c) =>
        handle(c).catch((err) => {
          // The lease runs out and the attempt is made again; nothing is lost.
          scope.log.error({ err, jobId: c.job._id }, 'notify handler failed');
        }),
      ),
    );
    handled += batch.length;
    if (batch.length < concurrency) return handled;
  }
}

/** One pass: every due webhook, then every due email (or, without a relay, marks them unsent). */
async function pass(scope: WorkerScope, concurrency: number, leaseMs: number, stopping: () => boolean): Promise<number> {
  const { opts, log } = scope;
  let n = await drain(scope, concurrency, stopping, () => claimDueWebhook(opts.db, new Date(), leaseMs), (c) => handleWebhook(scope, c));
  const email = opts.email;
  if (email) n += await drain(scope, concurrency, stopping, () => claimDueEmail(opts.db, new Date(), leaseMs), (c) => handleEmail(scope, c, email));
  else {
    const marked = await markEmailsWithoutRelay(opts.db, new Date());
    for (const jobId of marked) log.warn({ jobId }, 'completion email not sent: no SMTP relay configured (set SMTP_RELAY_URL)');
    n += marked.length;
  }
  return n;
}

export function startNotifyWorker(opts: NotifyWorkerOptions): NotifyWorker {
  const workerId = randomUUID().slice(0, 8);
  const log = opts.log.child({ component: 'notify', worker: workerId });
  const scope: WorkerScope = {
    opts,
    log,
    metrics: opts.metrics ?? (opts.registry ? createNotifyMetrics(opts.registry) : null),
    ladder: webhookLadder(opts.ladderScale ?? NOTIFY_DEFAULTS.ladderScale),
    ownTransport: opts.email && typeof opts.email.transport === 'string' ? createMailTransport(opts.email.transport) : null,
  };
  const leaseMs = opts.leaseMs ?? NOTIFY_DEFAULTS.claimLeaseMs;
  const concurrency = opts.concurrency ?? NOTIFY_DEFAULTS.concurrency;
  const pollMs = opts.pollIntervalMs ?? NOTIFY_DEFAULTS.pollIntervalMs;

  let stopping = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const runOnce = (): Promise<number> => {
    running ??= pass(scope, concurrency, leaseMs, () => stopping).finally(() => {
      running = null;
    });
    return running;
  };
  const tick = () => {
    timer = null;
    runOnce()
      .catch((err) => log.error({ err }, 'notify pass failed'))
      .finally(() => {
        if (!stopping) timer = setTimeout(tick, pollMs);
      });
  };
  timer = setTimeout(tick, 0);
  const { ladder } = scope;
  log.info({ ladder: ladder.delaysS.map((s) => s * ladder.scale), attempts: maxAttempts(ladder) }, 'notify worker started');
  if (!opts.email) log.warn('completion emails are off: no SMTP relay configured (SMTP_RELAY_URL); jobs with notify_email say so in notify.unsent_reason');

  return {
    runOnce,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => undefined);
      scope.ownTransport?.close();
    },
  };
}

/** The webhook half alone, by the name the scheduler's wiring expects (no `email` settings). */
export function startWebhookWorker(opts: Omit<NotifyWorkerOptions, 'email'>): NotifyWorker {
  return startNotifyWorker(opts);
}
