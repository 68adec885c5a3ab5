// The scheduler process runs the completion notifier: a finished job with a webhook_url gets one
// signed job.completed POST, and the delivery is recorded on the job (what GET /v1/jobs/{id} shows).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@dv/accounts';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { verifyWebhookSignature } from '@dv/notify';
import type { RunningProcess } from '@dv/stack';
import { createTestJob, publishItems, waitForJob } from './testing/jobs.ts';
import { startHarness, until, type Harness } from './testing/harness.ts';

let t: Harness;
let proc: RunningProcess;
let receiver: Server;
let receiverUrl: string;
const received: { body: string; signature: string | undefined }[] = [];

beforeAll(async () => {
  t = await startHarness('notify');
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ body, signature: req.headers['x-verify-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  proc = await t.startSchedulerProcess({ WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true', NOTIFY_POLL_INTERVAL_MS: '100', PUBLIC_BASE_URL: 'https://verify.example' });
}, 120_000);

afterAll(async () => {
  await proc?.stop();
  await new Promise<void>((r) => receiver?.close(() => r()));
  await t?.stop();
});

describe('completion webhooks from the scheduler process', () => {
  it('POSTs one signed job.completed event and records the delivery on the job', async () => {
    const account = await createAccount(t.db, { name: 'Hooks', email: 'hooks@acme.test', plan: 'business' });
    const { job, items } = await createTestJob(t.db, t.nc, ['ann@example.com', 'bob.invalid@example.com'], { mode: 'sandbox', accountId: account._id, noPublish: true });
    const jobs = t.db.collection<JobDoc>(COLLECTIONS.jobs.name);
    await jobs.updateOne({ _id: job._id }, { $set: { webhook: { url: receiverUrl, attempts: 0, last_status: null, last_error: null, next_attempt_at: null, delivered_at: null } } });
    await publishItems(t.nc, job, items);
    await waitForJob(t.db, job._id);

    const delivered = await until(async () => (await jobs.findOne({ _id: job._id }))?.webhook?.delivered_at ?? null, 20_000, 'webhook delivered');
    expect(delivered).toBeInstanceOf(Date);
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(verifyWebhookSignature(hit!.signature ?? '', hit!.body, account.webhook_secret)).toBe(true);
    expect(verifyWebhookSignature(hit!.signature ?? '', hit!.body, 'whsec_wrong')).toBe(false);
    const body = JSON.parse(hit!.body) as { type: string; data: { job_id: string; results_url: string; counts: Record<string, number> } };
    expect(body.type).toBe('job.completed');
    expect(body.data.job_id).toBe(job._id);
    expect(body.data.results_url).toBe(`https://verify.example/v1/jobs/${job._id}/results`);
    expect(body.data.counts).toMatchObject({ deliverable: 1, undeliverable: 1 });
    const after = await jobs.findOne({ _id: job._id });
    expect(after?.webhook).toMatchObject({ attempts: 1, last_status: 204, delivered_at: expect.any(Date) });

    // Nothing is sent twice, however long the worker keeps polling.
    await new Promise((r) => setTimeout(r, 600));
    expect(received).toHaveLength(1);
  });
});
