// The dispatcher's shared shapes, apart from dispatch.ts so its parts (dispatch-send.ts,
// dispatch-settle.ts) can use them without an import cycle (dispatch.ts builds them).
import type { Batcher } from '../live/batcher.ts';
import type { LiveDeps, LiveItem } from '../live/live-types.ts';
import type { MxHealth } from '../politeness/mx-health.ts';
import type { Politeness } from '../politeness/politeness.ts';

export interface DispatcherDeps extends LiveDeps {
  politeness: Politeness;
  mxHealth: MxHealth;
  batcher: Batcher<LiveItem>;
  requeue: (item: LiveItem, preferIp: string | null) => void;
  /** A session proved the domain catch-all (this replica's memo learns it at once). */
  onCatchAll: (domain: string) => void;
  /** The provider's learned error budget per connection (harvest-cut.ts), null when none. */
  errorBudget: (provider: string) => Promise<number | null>;
  /** A harvest defence's cut taught this budget; `heldMs` > 0 when Redis could not take it and this replica must keep it that long. */
  onErrorBudget: (provider: string, n: number, heldMs: number) => void;
  /** A 452 4.5.3 taught this RCPT limit; `heldMs` > 0 when Redis could not take it and this replica must keep it that long. */
  onLearnedRcpts: (provider: string, n: number, heldMs: number) => void;
}

/** The items one probe session carries, and the source IP their batch asked for (a greylist retry's). */
export interface SessionBatch {
  domain: string;
  preferIp: string | null;
  values: LiveItem[];
}
