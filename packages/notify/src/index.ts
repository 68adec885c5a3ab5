// @dv/notify: the job.completed webhook (signature, SSRF guard, durable retry ladder) and the
// completion email. docs/notify.md is the guide; everything public is exported here.
export { NOTIFY_DEFAULTS } from './defaults.ts';
export {
  SIGNATURE_HEADER,
  signWebhook,
  parseSignatureHeader,
  verifyWebhookSignature,
  downloadSignature,
  signDownloadUrl,
  downloadScope,
  checkDownloadSignature,
  verifyDownloadSignature,
  type ParsedSignature,
  type VerifyOptions,
  type DownloadCheck,
  type DownloadVariant,
} from './signature.ts';
export { webhookLadder, maxAttempts, nextAttemptAt, type Ladder } from './ladder.ts';
export {
  checkUrl,
  checkTarget,
  systemResolver,
  type CheckedTarget,
  type ParsedTarget,
  type RefusedTarget,
  type RefusalReason,
  type ResolvedAddress,
  type Resolver,
  type TargetOptions,
} from './target.ts';
export { deliverOnce, headersAreSafe, type DeliverOptions, type DeliveryOutcome, type DeliveryResult } from './deliver.ts';
export {
  buildJobCompletedEvent,
  countDecisions,
  type BuildEventOptions,
  type DecisionAction,
  type DecisionCounts,
  type JobCompletedData,
  type JobCompletedEvent,
} from './event.ts';
export { renderCompletionEmail, sendCompletionEmail, createMailTransport, type CompletionEmailContent, type SendCompletionEmailOptions, type RenderedEmail } from './email.ts';
export { NOTIFY_METRICS, createNotifyMetrics, type NotifyMetrics, type EmailOutcome } from './metrics.ts';
export { loadDecisionCounts } from './store.ts';
export { startNotifyWorker, startWebhookWorker, type NotifyWorker, type NotifyWorkerOptions, type EmailSettings } from './worker.ts';
export { notifyConfigSchema, notifyTunables, notifyProductionRules, webhookLoopbackRule, notifyWorkerSettings, type NotifyConfig } from './config.ts';
export { PUBLISHED_DOWNLOAD_SECRETS, downloadSecretProductionRules, resolveDownloadSecret } from './download-secret.ts';
