import { describe, expect, it } from 'vitest';
import { buildJobCompletedEvent } from '@dv/notify';
import { eventDoc, jobDoc, result } from '@dv/notify/testing';
import { gatewayRoutes } from '../app.ts';
import { buildOpenApiDocument } from '../openapi.ts';
import { webhookEventSchema } from './webhook-doc.ts';

// The documented webhook body must be what @dv/notify actually sends.

describe('the job.completed webhook in the OpenAPI document', () => {
  it('describes the body notify builds, for lists and single verifies', () => {
    const list = jobDoc({ _id: 'job_A1', account_id: 'acc_1' });
    expect(webhookEventSchema.safeParse(buildJobCompletedEvent(list, eventDoc(list), { publicBaseUrl: 'https://api.example.com', decisions: { send: 2, review: 1, drop: 1 } })).error).toBeUndefined();
    const single = jobDoc({ _id: 'job_S1', account_id: 'acc_1', kind: 'single', label: null, total: 1, done: 1, counts: { deliverable: 0, undeliverable: 0, risky: 1, unknown: 0 } });
    const body = buildJobCompletedEvent(single, eventDoc(single, { data: { result: result('ada@example.com', 'risky', 'review') } }), { publicBaseUrl: 'https://api.example.com' });
    expect(webhookEventSchema.safeParse(body).error).toBeUndefined();
    expect(webhookEventSchema.safeParse({ ...body, type: 'job.started' }).success).toBe(false);
  });

  it('is listed under webhooks with its signature header', () => {
    const doc = buildOpenApiDocument(gatewayRoutes(), 'https://api.example.com') as { webhooks?: Record<string, { post?: { parameters?: Array<{ name: string; in: string }>; description?: string } }> };
    const post = doc.webhooks?.['job.completed']?.post;
    expect(post?.parameters).toContainEqual(expect.objectContaining({ name: 'X-Verify-Signature', in: 'header' }));
    expect(post?.description).toContain('HMAC-SHA256');
  });
});
