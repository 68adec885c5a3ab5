import { createHash } from 'node:crypto';

// Rescan timing, pure (docs/portfolio-scanner.md "Data model"). Each domain has a fixed phase
// within the rescan interval, from a stable hash of its name: a million domains make a steady
// stream rather than a midnight burst, and each keeps its place from one interval to the next and
// across processes. Times are whole milliseconds so that slotOf(d, nextDueAt(d, …)) is exact.

const HASH_SPACE = 2 ** 48;

/** Where in the interval the domain's scans fall, as a fraction in [0, 1). */
export function phaseOf(domain: string): number {
  return createHash('sha256').update(domain).digest().readUIntBE(0, 6) / HASH_SPACE;
}

function phaseMs(domain: string, intervalMs: number): number {
  return Math.floor(phaseOf(domain) * intervalMs);
}

/**
 * The scan slot a time falls in: the start (epoch milliseconds) of the latest due time of the
 * domain at or before `at`. A start time rather than a slot index, so slots stay increasing when
 * the interval is reconfigured. JetStream message ids and the store's idempotency use it.
 */
export function slotOf(domain: string, at: Date, intervalS: number): number {
  const intervalMs = intervalS * 1000;
  const phase = phaseMs(domain, intervalMs);
  return Math.floor((at.getTime() - phase) / intervalMs) * intervalMs + phase;
}

/** The domain's first due time strictly after `now`. */
export function nextDueAt(domain: string, intervalS: number, now: Date): Date {
  return new Date(slotOf(domain, now, intervalS) + intervalS * 1000);
}
