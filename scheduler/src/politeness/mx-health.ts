// MX host health per (MX host, source IP). A connect failure or connect timeout says that one
// source address could not reach the host, not that nobody can: the source address's own egress
// may be what is broken (a node whose route out died times out everywhere). So a failure marks
// the pair, the host is down for an item only when every usable source IP found every MX host of
// the domain down, and until then the item goes to an IP that has not (docs/scheduler.md "MX
// health"). Sessions the node itself ended (`node_fault`) mark nothing. Pure rules first, then
// the shared store (Redis: one sorted set per host, member = IP key, score = expiry on Redis's
// clock, so replicas with skewed clocks agree).
import type { Redis } from 'ioredis';
import type { ProbeSessionReply } from '@dv/contracts';
import { Memo } from '../intake/coalesce.ts';

/** For one MX host: milliseconds left of its down mark, by IP key (absent = not down for that IP). */
export type HostDown = ReadonlyMap<string, number>;
/** For the hosts of one domain's MX list. */
export type MxHealthView = ReadonlyMap<string, HostDown>;

/** How long `ipKey` cannot reach the domain: 0 when some host of its MX list is not down for it, else the soonest expiry. */
export function downForIp(view: MxHealthView, hosts: readonly string[], ipKey: string): number {
  let soonest = Infinity;
  for (const host of hosts) {
    const ms = view.get(host)?.get(ipKey) ?? 0;
    if (ms <= 0) return 0;
    soonest = Math.min(soonest, ms);
  }
  return soonest === Infinity ? 0 : soonest;
}

/**
 * How long the domain is down for every usable IP: 0 while at least one of them may still reach
 * it, or when there is no usable IP at all (no fleet says nothing about the host); else the time
 * until the first IP may try again.
 */
export function downForEveryIp(view: MxHealthView, hosts: readonly string[], usableIpKeys: Iterable<string>): number {
  let soonest = Infinity;
  for (const ipKey of usableIpKeys) {
    const ms = downForIp(view, hosts, ipKey);
    if (ms === 0) return 0;
    soonest = Math.min(soonest, ms);
  }
  return soonest === Infinity ? 0 : soonest;
}

/**
 * The marks one session teaches, for the (host, source IP) it ran from: a connect failure marks
 * the hosts it failed on for `downMs`, every connect attempt timing out for `timeoutDownMs`
 * (2 min / 15 min, as ZoneMTA caches them). Nothing when the node says the fault was its own.
 */
export function mxDownMarks(reply: ProbeSessionReply, mxHosts: readonly string[], downMs: number, timeoutDownMs: number): Array<{ host: string; ms: number }> {
  if (reply.node_fault) return [];
  let ms = 0;
  if (reply.outcome === 'connect_failed') ms = downMs;
  else if (reply.outcome === 'timeout' && reply.mx_used === null) ms = timeoutDownMs;
  if (ms === 0) return [];
  const hosts = reply.connect_errors && reply.connect_errors.length > 0 ? [...new Set(reply.connect_errors.map((e) => e.host))] : mxHosts;
  return hosts.map((host) => ({ host, ms }));
}

// A key of another type is a host-wide mark of the version before (a string): it is replaced
// (MARK) or read as no mark (READ), so a rolling upgrade neither fails nor keeps the old rule.
const MARK = `
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'zset' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[2])
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (not cur) or tonumber(cur) < now + ms then redis.call('ZADD', KEYS[1], now + ms, ARGV[1]) end
if redis.call('PTTL', KEYS[1]) < ms then redis.call('PEXPIRE', KEYS[1], ms) end
return 1
`;

const READ = `
if redis.call('TYPE', KEYS[1])['ok'] ~= 'zset' then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local r = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 2, #r, 2 do r[i] = tostring(tonumber(r[i]) - now) end
return r
`;

/** The shared MX health marks. */
export class MxHealthStore {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(opts: { redis: Redis; prefix: string }) {
    this.redis = opts.redis;
    this.prefix = opts.prefix;
  }

  private key(host: string): string {
    return `${this.prefix}mxdown:${host.toLowerCase()}`;
  }

  async read(host: string): Promise<Map<string, number>> {
    const flat = (await this.redis.eval(READ, 1, this.key(host))) as string[];
    const out = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    return out;
  }

  async mark(host: string, ipKey: string, ms: number): Promise<void> {
    await this.redis.eval(MARK, 1, this.key(host), ipKey, Math.max(1, Math.round(ms)));
  }
}

/** Marks kept in process at most (this replica's own, beside the memo of shared ones); cleared when full, like every memo. */
const LOCAL_MARKS_MAX = 20_000;

/**
 * This replica's view: the shared marks, re-read at most once per `memoMs` per host, merged with
 * the marks this replica made itself, which count at once and also while Redis cannot be written.
 */
export class MxHealth {
  private readonly store: MxHealthStore;
  /** host -> IP key -> local time the mark ends. */
  private readonly shared: Memo<Map<string, number>>;
  private readonly own = new Map<string, Map<string, number>>();

  constructor(store: MxHealthStore, memoMs: number) {
    this.store = store;
    this.shared = new Memo(memoMs);
  }

  async view(hosts: readonly string[]): Promise<MxHealthView> {
    const out = new Map<string, Map<string, number>>();
    for (const host of hosts) {
      const shared = await this.shared.get(host, async () => {
        const at = Date.now();
        const left = await this.store.read(host).catch(() => new Map<string, number>());
        return new Map([...left].map(([ip, ms]) => [ip, at + ms]));
      });
      const now = Date.now();
      const merged = new Map<string, number>();
      for (const marks of [shared, this.own.get(host)]) {
        for (const [ip, until] of marks ?? []) if (until - now > 0) merged.set(ip, Math.max(merged.get(ip) ?? 0, until - now));
      }
      out.set(host, merged);
    }
    return out;
  }

  /** Records a mark here at once, then in Redis (false when Redis could not take it: the mark still holds in this replica). */
  async mark(host: string, ipKey: string, ms: number): Promise<boolean> {
    if (this.own.size >= LOCAL_MARKS_MAX) this.own.clear();
    const marks = this.own.get(host) ?? new Map<string, number>();
    const now = Date.now();
    for (const [ip, until] of marks) if (until <= now) marks.delete(ip);
    marks.set(ipKey, Math.max(marks.get(ipKey) ?? 0, now + ms));
    this.own.set(host, marks);
    return this.store.mark(host, ipKey, ms).then(
      () => true,
      () => false,
    );
  }
}
