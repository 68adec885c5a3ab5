import { ApiError } from '@dv/runtime';
import { vetWebhookUrl } from '../http/webhook-url.ts';
import type { UploadOptions } from './uploads.ts';

// The upload form's options, read and checked as POST /v1/jobs checks them (a webhook URL is
// vetted by the same function), with errors in words per field.

/** The deadlines offered (max_wall_seconds); the empty value is none. */
export const DEADLINES: readonly { value: string; label: string }[] = [
  { value: '', label: 'No deadline' },
  { value: '3600', label: '1 hour' },
  { value: '21600', label: '6 hours' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days' },
];

export const deadlineLabel = (seconds: number | null): string => DEADLINES.find((d) => d.value === (seconds === null ? '' : String(seconds)))?.label ?? `${seconds} seconds`;

export type OptionErrors = Partial<Record<'label' | 'webhook_url' | 'max_wall_seconds', string>>;

function webhookError(url: string, allowLoopback: boolean): string | null {
  try {
    vetWebhookUrl(url, allowLoopback);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const issue = Array.isArray(err.detail) ? (err.detail[0] as { msg?: string } | undefined) : undefined;
    return `${issue?.msg ?? 'This URL cannot receive webhooks'}. Give an https URL on a public host, or leave the field empty.`;
  }
}

export function readOptions(fields: Record<string, string>, allowLoopback: boolean): { options: UploadOptions; errors: OptionErrors } {
  const errors: OptionErrors = {};
  const label = (fields.label ?? '').trim();
  if (label.length > 200) errors.label = `The label is ${label.length} characters long; keep it to 200.`;
  const webhook = (fields.webhook_url ?? '').trim();
  const hookError = webhook ? webhookError(webhook, allowLoopback) : null;
  if (hookError) errors.webhook_url = hookError;
  const deadline = fields.max_wall_seconds ?? '';
  if (!DEADLINES.some((d) => d.value === deadline)) errors.max_wall_seconds = 'Choose one of the deadlines offered.';
  const options: UploadOptions = {
    label: label ? label.slice(0, 200) : null,
    notifyEmail: fields.notify_email === 'on',
    webhookUrl: webhook && !hookError ? webhook : null,
    maxWallSeconds: deadline && !errors.max_wall_seconds ? Number(deadline) : null,
  };
  return { options, errors };
}
