import { signDownloadUrl, type DownloadVariant } from '@dv/notify';
import type { GatewayContext } from '../context.ts';

// The signed, expiring download links of a job's results: the whole CSV (the job status's
// `download_url` and the completion email), and the parts the console lists (one decision or one
// status, CSV or NDJSON). Every link is served by GET /v1/downloads/{job_id}.{csv|ndjson} with the
// API's own exporters, and signs its format and filter, so no link opens more than it names.

export const DOWNLOAD_DECISIONS = ['send', 'review', 'drop'] as const;
export const DOWNLOAD_STATUSES = ['deliverable', 'undeliverable', 'risky', 'unknown'] as const;

export interface DownloadLink extends DownloadVariant {
  url: string;
  expiresAt: Date;
}

/** The link of one variant, valid DOWNLOAD_LINK_TTL_SECONDS from now. */
export function downloadLink(ctx: GatewayContext, jobId: string, variant: DownloadVariant = {}, nowMs = Date.now()): DownloadLink {
  const exp = Math.floor(nowMs / 1000) + ctx.config.DOWNLOAD_LINK_TTL_SECONDS;
  return { ...variant, url: signDownloadUrl(ctx.config.PUBLIC_BASE_URL, jobId, ctx.downloadSecret, exp, variant), expiresAt: new Date(exp * 1000) };
}

/** Every variant: all rows, each decision, each status; each as CSV and as NDJSON. */
export function downloadLinks(ctx: GatewayContext, jobId: string, nowMs = Date.now()): DownloadLink[] {
  const parts: DownloadVariant[] = [{}, ...DOWNLOAD_DECISIONS.map((decision) => ({ decision })), ...DOWNLOAD_STATUSES.map((status) => ({ status }))];
  return parts.flatMap((p) => (['csv', 'ndjson'] as const).map((format) => downloadLink(ctx, jobId, { ...p, format }, nowMs)));
}
