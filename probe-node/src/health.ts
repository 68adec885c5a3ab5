// Per-provider health as this node sees it: how many throttled and policy-blocked replies each
// provider sent in a recent window. Published in every heartbeat so the scheduler can pause a
// provider or route around a blocked IP before its own retries find out. Bounded in memory:
// per provider one counter per time bucket, and at most `maxProviders` providers.
export type HealthKind = 'throttled' | 'blocked';

const BUCKETS = 30;

interface Track {
  /** Bucket index (time / bucketMs) of each slot, and its counts. */
  slots: { index: number; throttled: number; blocked: number }[];
}

export class ProviderHealth {
  private readonly windowMs: number;
  private readonly bucketMs: number;
  private readonly maxProviders: number;
  private readonly now: () => number;
  private readonly tracks = new Map<string, Track>();

  constructor(windowMs: number, maxProviders: number, now: () => number = Date.now) {
    this.windowMs = windowMs;
    this.bucketMs = Math.max(1, Math.ceil(windowMs / BUCKETS));
    this.maxProviders = maxProviders;
    this.now = now;
  }

  record(provider: string, kind: HealthKind): void {
    const index = Math.floor(this.now() / this.bucketMs);
    let track = this.tracks.get(provider);
    if (track) this.tracks.delete(provider);
    else track = { slots: [] };
    // Re-inserted last: Map order is then least recently seen first, which is what gets evicted.
    this.tracks.set(provider, track);
    if (this.tracks.size > this.maxProviders) this.tracks.delete(this.tracks.keys().next().value as string);
    let slot = track.slots[track.slots.length - 1];
    if (!slot || slot.index !== index) {
      slot = { index, throttled: 0, blocked: 0 };
      track.slots.push(slot);
      if (track.slots.length > BUCKETS + 1) track.slots.shift();
    }
    slot[kind] += 1;
  }

  /** Counts within the window, for providers with at least one event in it. */
  snapshot(): Record<string, { throttled: number; blocked: number }> {
    const oldest = Math.floor((this.now() - this.windowMs) / this.bucketMs);
    const out: Record<string, { throttled: number; blocked: number }> = {};
    for (const [provider, track] of this.tracks) {
      track.slots = track.slots.filter((s) => s.index > oldest);
      if (track.slots.length === 0) {
        this.tracks.delete(provider);
        continue;
      }
      out[provider] = {
        throttled: track.slots.reduce((n, s) => n + s.throttled, 0),
        blocked: track.slots.reduce((n, s) => n + s.blocked, 0),
      };
    }
    return out;
  }
}
