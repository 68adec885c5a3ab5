// A lease in Redis held by one replica at a time (the rescan planner's). Taken with SET NX PX,
// renewed at a third of its length by its holder only (compare-and-extend), released on a clean
// stop (compare-and-delete). A holder that dies stops renewing: another replica takes the lease
// once it expires, so at most one lease length passes without a planner.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '@dv/runtime';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface LeaseOptions {
  redis: Redis;
  key: string;
  leaseMs: number;
  log: Logger;
  /** Called when this replica takes the lease or loses it. */
  onChange?: (held: boolean) => void;
}

export class Lease {
  readonly id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly o: LeaseOptions;
  private timer: NodeJS.Timeout | null = null;
  private holding = false;
  /** Until when this replica may act as the holder without asking Redis (renewals succeed well before). */
  private validUntil = 0;

  constructor(opts: LeaseOptions) {
    this.o = opts;
  }

  /** True while this replica holds an unexpired lease. */
  get held(): boolean {
    return this.holding && Date.now() < this.validUntil;
  }

  start(): void {
    this.timer = setInterval(() => void this.attempt(), Math.max(50, Math.floor(this.o.leaseMs / 3)));
    void this.attempt();
  }

  /** Stops renewing and gives the lease up so another replica takes it at once. */
  async stop(): Promise<void> {
    this.halt();
    if (this.holding) await this.o.redis.eval(RELEASE, 1, this.o.key, this.id).catch(() => undefined);
    this.set(false);
  }

  /** Stops renewing without giving the lease up (what a killed holder does; for tests). */
  halt(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async attempt(): Promise<void> {
    const asked = Date.now();
    try {
      let ok: boolean;
      if (this.holding) ok = (await this.o.redis.eval(RENEW, 1, this.o.key, this.id, this.o.leaseMs)) === 1;
      else ok = (await this.o.redis.set(this.o.key, this.id, 'PX', this.o.leaseMs, 'NX')) === 'OK';
      if (this.timer === null && ok) {
        // Stopped while asking: do not keep what was just taken.
        await this.o.redis.eval(RELEASE, 1, this.o.key, this.id).catch(() => undefined);
        return;
      }
      // Counted from before the request: the lease in Redis cannot outlive this.
      if (ok) this.validUntil = asked + this.o.leaseMs;
      this.set(ok);
    } catch (err) {
      // Redis unreachable: keep acting only while the lease certainly has not expired.
      this.o.log.warn({ err: (err as Error).message }, 'planner lease: redis unreachable');
      if (Date.now() >= this.validUntil) this.set(false);
    }
  }

  private set(held: boolean): void {
    if (held === this.holding) return;
    this.holding = held;
    this.o.log.info({ lease: this.o.key, id: this.id }, held ? 'planner lease taken' : 'planner lease lost');
    this.o.onChange?.(held);
  }
}
