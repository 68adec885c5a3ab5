import { Counter, Histogram, type Registry } from 'prom-client';

// Metric names of @dv/notify in one place. The only label is a bounded outcome: never a URL, a
// host, an account or a job id.
export const NOTIFY_METRICS = {
  webhookAttempts: 'notify_webhook_attempts_total',
  webhookDuration: 'notify_webhook_attempt_duration_seconds',
  webhookGaveUp: 'notify_webhook_gave_up_total',
  emails: 'notify_completion_emails_total',
} as const;

export type EmailOutcome = 'sent' | 'failed' | 'gave_up';

export interface NotifyMetrics {
  webhookAttempts: Counter<'outcome'>;
  webhookDuration: Histogram<'outcome'>;
  webhookGaveUp: Counter<string>;
  emails: Counter<'outcome'>;
}

export function createNotifyMetrics(registry: Registry): NotifyMetrics {
  return {
    webhookAttempts: new Counter({
      name: NOTIFY_METRICS.webhookAttempts,
      help: 'Webhook delivery attempts by outcome (delivered, http_status, redirect, timeout, network, refused)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookDuration: new Histogram({
      name: NOTIFY_METRICS.webhookDuration,
      help: 'Duration of one webhook POST in seconds, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookGaveUp: new Counter({ name: NOTIFY_METRICS.webhookGaveUp, help: 'Webhook deliveries abandoned after the last retry or a permanent refusal', registers: [registry] }),
    emails: new Counter({ name: NOTIFY_METRICS.emails, help: 'Completion email tries by outcome (sent, failed, gave_up)', labelNames: ['outcome'] as const, registers: [registry] }),
  };
}
