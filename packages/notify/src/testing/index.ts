// What other workspaces' tests use of notify's fixtures (@dv/notify/testing).
export { eventDoc, jobDoc, result } from './fixtures.ts';
export { decodeQuotedPrintable, startCaptureRelay, type CaptureRelay, type CapturedMail } from './smtp.ts';
