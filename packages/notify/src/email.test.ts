import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompletionEmail, sendCompletionEmail } from './email.ts';
import { signDownloadUrl, verifyDownloadSignature } from './signature.ts';
import { jobDoc } from './testing/fixtures.ts';
import { startCaptureRelay, type CaptureRelay } from './testing/smtp.ts';

const DOWNLOAD_SECRET = 'download-signing-secret-for-tests-0123456789';
const job = jobDoc({ _id: 'job_E1', account_id: 'acc_1', total: 1200, done: 1200, counts: { deliverable: 900, undeliverable: 180, risky: 90, unknown: 30 } });
const decisions = { send: 900, review: 110, drop: 190 };

describe('renderCompletionEmail', () => {
  const csvUrl = signDownloadUrl('https://api.example.com', job._id, DOWNLOAD_SECRET, 1_764_000_000);
  const mail = renderCompletionEmail({ job, counts: job.counts, decisions, csvUrl, linkExpiresAt: new Date(1_764_000_000_000), publicBaseUrl: 'https://api.example.com' });

  it('summarizes counts by status and decision in text and HTML', () => {
    expect(mail.subject).toBe('Verification finished: "october leads" (1200 addresses)');
    for (const line of [/deliverable\s+900/, /undeliverable\s+180/, /risky\s+90/, /unknown\s+30/, /send\s+900/, /review\s+110/, /drop\s+190/]) expect(mail.text).toMatch(line);
    expect(mail.text).toContain(csvUrl);
    expect(mail.text).toContain('GET https://api.example.com/v1/jobs/job_E1/results');
    expect(mail.text).toContain('until 2025-11-24 16:00 UTC');
    expect(mail.html).toContain(`href="${csvUrl.replace(/&/g, '&amp;')}"`);
    expect(mail.html).toMatch(/<td>unknown<\/td><td[^>]*>30<\/td>/);
  });

  it('keeps a hostile label out of headers and markup', () => {
    const evil = renderCompletionEmail({ job: { ...job, label: 'x\r\nBcc: victim@example.com <script>' }, counts: job.counts, decisions, csvUrl });
    expect(evil.subject).not.toMatch(/[\r\n]/);
    expect(evil.html).not.toContain('<script>');
  });
});

describe('sendCompletionEmail through a local SMTP relay', () => {
  let relay: CaptureRelay;
  beforeAll(async () => {
    relay = await startCaptureRelay();
  });
  afterAll(async () => {
    await relay?.close();
  });

  it('delivers the summary and a link whose signature verifies', async () => {
    const expS = Math.floor(Date.now() / 1000) + 3_600;
    const { messageId } = await sendCompletionEmail({
      transport: relay.url,
      from: 'Email Verification <no-reply@verify.example.com>',
      to: 'owner@customer.example',
      job,
      counts: job.counts,
      decisions,
      csvUrl: signDownloadUrl('https://api.example.com', job._id, DOWNLOAD_SECRET, expS),
    });
    expect(messageId).toBe('<job_E1.completed@verify.example.com>');
    expect(relay.inbox).toHaveLength(1);
    const mail = relay.inbox[0]!;
    expect(mail.to).toEqual(['owner@customer.example']);
    expect(mail.from).toBe('no-reply@verify.example.com');
    expect(mail.decoded).toMatch(/deliverable\s+900/);
    expect(mail.decoded).toMatch(/drop\s+190/);
    const link = /https:\/\/api\.example\.com\/v1\/downloads\/([A-Za-z0-9_]+)\.csv\?exp=(\d+)&sig=([0-9a-f]{64})/.exec(mail.decoded);
    expect(link).not.toBeNull();
    const [, jobId, exp, sig] = link!;
    expect(jobId).toBe('job_E1');
    expect(verifyDownloadSignature(jobId!, exp!, sig!, DOWNLOAD_SECRET)).toBe(true);
    expect(verifyDownloadSignature(jobId!, exp!, sig!, 'another-secret-another-secret-another')).toBe(false);
  });
});
