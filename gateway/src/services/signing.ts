import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed, expiring CSV links (GET /v1/downloads/{job_id}.csv?exp=&sig=): no API key needed, so
// the link can travel in a completion email. sig = hex HMAC-SHA256(secret, "<job_id>.<exp>"),
// exp = unix seconds. Anyone holding DOWNLOAD_SIGNING_SECRET (the scheduler's completion email)
// can mint the same links.

export function signDownload(secret: string, jobId: string, exp: number): string {
  return createHmac('sha256', secret).update(`${jobId}.${exp}`).digest('hex');
}

export function downloadUrl(baseUrl: string, secret: string, jobId: string, exp: number): string {
  return `${baseUrl}/v1/downloads/${jobId}.csv?exp=${exp}&sig=${signDownload(secret, jobId, exp)}`;
}

export type DownloadCheck = 'ok' | 'expired' | 'bad_signature';

export function checkDownload(secret: string, jobId: string, exp: string, sig: string, nowMs: number): DownloadCheck {
  if (!/^\d{1,12}$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return 'bad_signature';
  const want = Buffer.from(signDownload(secret, jobId, Number(exp)), 'hex');
  const got = Buffer.from(sig, 'hex');
  // Compare before looking at the time, so a forged link and an expired one take the same path.
  const valid = want.length === got.length && timingSafeEqual(want, got);
  if (!valid) return 'bad_signature';
  return Number(exp) * 1000 < nowMs ? 'expired' : 'ok';
}
