import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { CONSUMERS, KV_BUCKETS, loadFigures, loadLevelOf, type LoadFigures } from '@dv/contracts';
import type { Logger } from '@dv/runtime';

// Load figures for 202s and GET /v1/status. The scheduler writes them into the `LOAD` KV bucket
// every second (any key; the newest wins). Without a fresh entry the gateway falls back to the
// VERIFY consumers' pending counts and default speeds, so answers stay sensible with no
// scheduler running; its level is the scheduler's definition (@dv/contracts loadLevelOf) over the
// wait those speeds give, probe capacity being unknown here.

export interface LoadView extends LoadFigures {
  source: 'scheduler' | 'fallback';
}

export interface LoadOptions {
  nc: NatsConnection;
  log: Logger;
  staleAfterMs: number;
  refreshMs: number;
  fallbackSecondsPerSingle: number;
  fallbackSecondsPer1000: number;
}

const LOAD_BUCKET = KV_BUCKETS.find((b) => b.bucket === 'LOAD')?.bucket ?? 'LOAD';

export class LoadReader {
  private readonly opts: LoadOptions;
  private kv: KV | undefined;
  private jsm: JetStreamManager | undefined;
  private latest: LoadFigures | undefined;
  private fallback: { at: number; view: LoadView } | undefined;
  private stopWatch: (() => void) | undefined;

  constructor(opts: LoadOptions) {
    this.opts = opts;
  }

  async start(): Promise<void> {
    try {
      this.kv = await new Kvm(this.opts.nc).open(LOAD_BUCKET);
      const iter = await this.kv.watch({ key: '>' });
      this.stopWatch = () => iter.stop();
      void (async () => {
        for await (const e of iter) {
          if (e.operation !== 'PUT') continue;
          const parsed = loadFigures.safeParse(safeJson(e.string()));
          if (parsed.success && (!this.latest || parsed.data.at >= this.latest.at)) this.latest = parsed.data;
        }
      })().catch((err: Error) => this.opts.log.warn({ err: err.message }, 'LOAD watch ended'));
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'LOAD bucket unavailable; using fallback load figures');
    }
  }

  stop(): void {
    this.stopWatch?.();
  }

  async current(): Promise<LoadView> {
    const now = Date.now();
    if (this.latest && now - Date.parse(this.latest.at) <= this.opts.staleAfterMs) return { ...this.latest, source: 'scheduler' };
    if (this.fallback && now - this.fallback.at < this.opts.refreshMs) return this.fallback.view;
    const queue = { single: 0, list: 0 };
    try {
      this.jsm ??= await jetstreamManager(this.opts.nc);
      for (const c of CONSUMERS.filter((x) => x.stream === 'VERIFY')) {
        const info = await this.jsm.consumers.info(c.stream, c.durable);
        const n = info.num_pending + info.num_ack_pending;
        if (c.filterSubject.endsWith('single')) queue.single = n;
        else queue.list = n;
      }
    } catch {
      // No consumer info either: report an empty queue rather than fail the request.
    }
    const view = fallbackLoad(queue, this.opts.fallbackSecondsPerSingle, this.opts.fallbackSecondsPer1000, new Date(now));
    this.fallback = { at: now, view };
    return view;
  }
}

/**
 * Load figures without a scheduler's: the scheduler's estimates (its load.ts computeLoad) at the
 * default speeds, single checks first (only they wait ahead of a new one), and its level rule.
 */
export function fallbackLoad(queue: { single: number; list: number }, secondsPerSingleIdle: number, secondsPer1000: number, at: Date): LoadView {
  const secondsPerItem = secondsPer1000 / 1000;
  const secondsPerSingle = secondsPerSingleIdle + queue.single * secondsPerItem;
  return {
    load: loadLevelOf({ secondsPerSingle, utilisation: null, stalled: false }),
    queue,
    throughput_per_s: 0,
    probe_capacity: { total: 0, in_use: 0 },
    seconds_per_single: Math.round(secondsPerSingle * 100) / 100,
    seconds_per_1000: Math.round((queue.single + queue.list + 1000) * secondsPerItem * 100) / 100,
    reason: null,
    at: at.toISOString(),
    source: 'fallback',
  };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
