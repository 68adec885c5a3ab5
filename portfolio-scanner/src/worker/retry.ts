// When a failed scan is tried again (pure). Doubling from the first delay, capped: a store that
// fails because MongoDB is electing a primary succeeds seconds later, a resolver outage takes minutes.

/** Delay before delivery `deliveryCount + 1`, after delivery `deliveryCount` (1-based) failed. */
export function retryDelayMs(deliveryCount: number, baseMs: number, maxMs: number): number {
  const n = Math.max(1, Math.floor(deliveryCount));
  return Math.min(maxMs, baseMs * 2 ** Math.min(n - 1, 30));
}

/** True when this delivery was the last the consumer allows (`maxDeliver` -1 or 0: unlimited). */
export function isLastDelivery(deliveryCount: number, maxDeliver: number): boolean {
  return maxDeliver > 0 && deliveryCount >= maxDeliver;
}

/** The previous scan's selectors (`dkim_selectors`, "a, b"), tried again on every scan. */
export function knownSelectors(stored: string | null | undefined): string[] {
  return stored ? stored.split(',').map((s) => s.trim()).filter(Boolean) : [];
}
