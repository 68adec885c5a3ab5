// Worlds for the cluster's scenarios: domains with Zipf sizes (a few large, many small, as a real
// list), each with its own MX host on an internet address, 70% of mailboxes existing, some
// catch-all and some greylisting. Deterministic from the seed.
import type { DnsRecordInput, SmtpHostSpecInput, WorldInput } from '@dv/world';
import { internetAddress } from './topology.ts';

export interface ListWorldOptions {
  addresses: number;
  domains: number;
  seed?: number;
  /** Every SMTP reply and DNS answer this late (the links' latency: this kernel has no netem). */
  latencyMs?: number;
  catchAllShare?: number;
  greylistShare?: number;
  greylistSeconds?: number;
  /**
   * Share of domains hosted by large providers (MX names the provider table knows, so the
   * scheduler applies their politeness): Google (one MX host for all its domains, 5 sessions per
   * source address) and Microsoft 365 (one tenant MX host per domain, 2 sessions and 3 RCPTs per
   * source address). The rest run their own MX host. Default: none.
   */
  providers?: { google: number; microsoft: number };
}

export interface ListWorld {
  world: WorldInput;
  emails: string[];
  /** Addresses that exist (for checking verdicts). */
  existing: Set<string>;
  /** Who hosts each domain's mail. */
  providerOf: Map<string, 'google' | 'microsoft' | 'own'>;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

export function listWorld(opts: ListWorldOptions): ListWorld {
  const rand = rng(opts.seed ?? 1);
  const weights = Array.from({ length: opts.domains }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((opts.addresses * w) / total)));
  for (let i = 0, diff = opts.addresses - sizes.reduce((a, b) => a + b, 0); diff > 0; i = (i + 1) % opts.domains, diff--) sizes[i]! += 1;
  const records: DnsRecordInput[] = [{ name: 'test', type: 'SOA', primary: 'ns.test', admin: 'hostmaster.test' }];
  const hosts: SmtpHostSpecInput[] = [];
  const emails: string[] = [];
  const existing = new Set<string>();
  const providerOf = new Map<string, 'google' | 'microsoft' | 'own'>();
  // Google's one MX host serves every Google domain; index 0 is its address.
  const google: SmtpHostSpecInput = { name: 'aspmx.l.google.com', ip: internetAddress(0), mailboxes: [] };
  for (let i = 0; i < opts.domains; i++) {
    const r = rand();
    const catchAll = r < (opts.catchAllShare ?? 0.1);
    const greylist = !catchAll && r < (opts.catchAllShare ?? 0.1) + (opts.greylistShare ?? 0.05);
    const p = rand();
    const provider = !opts.providers ? 'own' : p < opts.providers.google ? 'google' : p < opts.providers.google + opts.providers.microsoft ? 'microsoft' : 'own';
    const name = `c${i}.test`;
    providerOf.set(name, provider);
    const local = Array.from({ length: sizes[i]! }, (_, k) => `u${k}@${name}`);
    const mailboxes = local.filter((_, k) => k % 10 < 7);
    for (const m of mailboxes) existing.add(m);
    emails.push(...local);
    if (provider === 'google') {
      records.push({ name, type: 'MX', priority: 10, exchange: google.name });
      google.mailboxes!.push(...mailboxes);
      continue;
    }
    const mx = provider === 'microsoft' ? `c${i}-test.mail.protection.outlook.com` : `mx.${name}`;
    const ip = internetAddress(i + 1);
    records.push({ name, type: 'MX', priority: 10, exchange: mx }, { name: mx, type: 'A', address: ip });
    hosts.push({ name: mx, ip, mailboxes, behaviour: { ...(catchAll ? { catchAll: true } : {}), ...(greylist ? { greylistSeconds: opts.greylistSeconds ?? 1 } : {}) } });
  }
  if (google.mailboxes!.length > 0) {
    records.push({ name: google.name, type: 'A', address: google.ip });
    hosts.push(google);
  }
  for (let i = emails.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [emails[i], emails[j]] = [emails[j]!, emails[i]!];
  }
  return { world: { name: 'cluster', latencyMs: opts.latencyMs ?? 20, dns: { records }, smtp: { hosts } }, emails, existing, providerOf };
}
