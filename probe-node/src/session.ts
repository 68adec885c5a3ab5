// One probe session request -> one reply: pick the MX (next one on connect failure) or reuse a
// kept-open connection to it (pool.ts), run the dialogue, reconnect with fewer RCPTs after 452
// 4.5.3, and report every raw reply. It never decides a verdict (the scheduler does) and never
// throws for anything a server does.
import type { ProbeSessionReply, ProbeSessionRequest, SmtpReply } from '@dv/contracts';
import { classifyAddress } from '@dv/net';
import type { ProbeConfig } from './config.ts';
import { openDialogue, quit, transaction, type Opened, type Refusal, type Stage } from './dialogue.ts';
import { errorRoom, hasErrorRoom, worthReusing, type ConnectionPool, type PooledConnection } from './pool.ts';
import { chooseSourceIp, effectiveTimeouts, egressFault, unreachableOutcome } from './plan.ts';
import type { HostResolver } from './resolve.ts';
import { addressProblem, catchAllAddress, needsSmtpUtf8 } from './smtp/commands.ts';
import { SessionFailure, SmtpConnection } from './smtp/connection.ts';
import { PROBE_DEFAULTS } from './defaults.ts';

const REUSED_NOTE = 'reused an open connection';
/** Starts the connect error of an MX address refused for its range (outcome mx_refused when nothing else was tried). */
const REFUSED_PREFIX = 'refused before connecting:';

type AddressState = NonNullable<ProbeSessionReply['results'][number]['state']>;
type Outcome = ProbeSessionReply['outcome'];

interface Entry {
  reply: SmtpReply | null;
  ms: number;
  stage?: Stage;
  state: AddressState;
}

export interface SessionDeps {
  config: ProbeConfig;
  nodeId: string;
  resolver: HostResolver;
  /** Aborted when the node must cut sessions short (shutdown after the drain budget). */
  signal?: AbortSignal;
  now?: () => number;
  /** Kept-open connections to reuse and to keep this session's in (absent: one connection per session, QUIT at the end). */
  pool?: ConnectionPool;
}

export interface ObservedReply {
  stage: Stage;
  reply: SmtpReply;
}

export interface SessionRun {
  reply: ProbeSessionReply;
  /** Every reply the servers sent that says something (greeting refusals, MAIL, RCPTs), for metrics and health. */
  observed: ObservedReply[];
}

interface Target {
  conn: SmtpConnection;
  host: string;
  ip: string;
  connectMs: number;
}

export async function runSession(req: ProbeSessionRequest, deps: SessionDeps): Promise<SessionRun> {
  const session = new ProbeSession(req, deps);
  return session.refusedRequest() ?? session.run();
}

type Transaction = Awaited<ReturnType<typeof transaction>>;

/** One session's state while it runs: the answers so far, the connection and what the reply says. */
class ProbeSession {
  private readonly req: ProbeSessionRequest;
  private readonly deps: SessionDeps;
  private readonly config: ProbeConfig;
  private readonly now: () => number;
  private readonly started: number;
  private readonly timeouts: ReturnType<typeof effectiveTimeouts>;
  private readonly observed: ObservedReply[] = [];
  private readonly observe = (stage: Stage, reply: SmtpReply): void => void this.observed.push({ stage, reply });
  private readonly entries = new Map<string, Entry>();
  private pending: string[];
  private readonly reply: ProbeSessionReply;
  private readonly notes: string[] = [];
  // Connect attempts that failed on this node's own side (SessionFailure.local).
  private localFailures = 0;
  private sourceIp: string | undefined;
  private catchAll: string | null = null;
  private signal: AbortSignal = new AbortController().signal;
  private conn: SmtpConnection | null = null;
  // The connection this session runs on, described for the pool (set once it is open).
  private current: Omit<PooledConnection, 'conn'> | null = null;
  private keepable = false;
  private readonly pool: ConnectionPool | undefined;
  private readonly errorBudget: number;
  private tlsFallback = false;
  private timings: NonNullable<ProbeSessionReply['timings']> = { connect_ms: 0, greeting_ms: 0, ehlo_ms: 0, tls_ms: null, mail_ms: null };

  constructor(req: ProbeSessionRequest, deps: SessionDeps) {
    this.req = req;
    this.deps = deps;
    this.config = deps.config;
    this.now = deps.now ?? (() => performance.now());
    this.started = this.now();
    this.timeouts = effectiveTimeouts(req.timeouts, this.config);
    for (const address of req.addresses) {
      if (!this.entries.has(address)) this.entries.set(address, { reply: null, ms: 0, state: addressProblem(address) === null ? 'not_attempted' : 'invalid_address' });
    }
    this.pending = [...this.entries].filter(([, e]) => e.state === 'not_attempted').map(([a]) => a);
    this.reply = {
      session_id: req.session_id,
      node_id: deps.nodeId,
      outcome: 'completed',
      mx_used: null,
      mx_ip: null,
      source_ip: null,
      tls: false,
      catch_all: null,
      results: [],
      duration_ms: 0,
      connections: 0,
      connect_errors: [],
    };
    this.pool = deps.pool;
    this.errorBudget = req.error_budget ?? this.config.PROBE_ASSUMED_ERROR_BUDGET;
  }

  private finish(outcome: Outcome, detail?: string, fault?: ProbeSessionReply['node_fault']): SessionRun {
    const { reply, notes } = this;
    if (detail) notes.unshift(detail);
    reply.outcome = outcome;
    // A session this node cut while stopping says nothing about the host (docs/probe-node.md "Outcomes").
    const nodeFault = outcome !== 'completed' && this.deps.signal?.aborted ? 'shutdown' : fault;
    if (nodeFault) reply.node_fault = nodeFault;
    reply.results = this.req.addresses.map((address) => {
      const e = this.entries.get(address)!;
      return { address, reply: e.reply, ms: round(e.ms), state: e.state, ...(e.stage ? { stage: e.stage } : {}) };
    });
    reply.duration_ms = round(this.now() - this.started);
    if (notes.length > 0) reply.detail = notes.join('; ').slice(0, 1_000);
    return { reply, observed: this.observed };
  }

  /** The session's end when the request itself cannot be sent (nothing is dialled), else null. */
  refusedRequest(): SessionRun | null {
    const { req } = this;
    if (req.mail_from !== '' && addressProblem(req.mail_from) !== null) return this.finish('protocol_error', 'mail_from cannot be sent as an SMTP path (control character, angle bracket or malformed)');
    const source = chooseSourceIp(req.source_ip, this.config.PROBE_SOURCE_IPS, req.domain);
    if (!source.ok) return this.finish('protocol_error', source.detail);
    this.sourceIp = source.ip;
    if (this.pending.length === 0) return this.finish('protocol_error', 'no address can be sent as an SMTP path; nothing was sent');
    return null;
  }

  async run(): Promise<SessionRun> {
    this.chooseCatchAll();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`session time limit of ${this.timeouts.sessionMs} ms reached`)), this.timeouts.sessionMs);
    this.signal = this.deps.signal ? AbortSignal.any([deadline.signal, this.deps.signal]) : deadline.signal;
    try {
      const kept = await this.takeKept();
      if (kept) this.adopt(kept);
      else {
        const ended = await this.openFresh();
        if (ended) return ended;
      }
      return await this.runRounds(kept !== null);
    } catch (err) {
      this.keepable = false;
      // A deadline or shutdown that lands between connections still means "timeout".
      if (err instanceof SessionFailure) return this.finish(this.signal.aborted ? 'timeout' : err.outcome, err.message, err.local ? 'egress' : undefined);
      // Not a server's doing (a bug): still one clear reply, never a crash of the node.
      return this.finish('protocol_error', `internal error: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
      await this.release();
    }
  }

  private chooseCatchAll(): void {
    let catchAll = this.req.catch_all_probe ? catchAllAddress(this.req.domain, PROBE_DEFAULTS.catchAllLocalPartChars) : null;
    if (catchAll !== null && addressProblem(catchAll) !== null) {
      this.notes.push('catch-all probe skipped: the domain cannot be sent as an SMTP path');
      catchAll = null;
    }
    if (catchAll !== null) this.reply.catch_all = { address: catchAll, reply: null };
    this.catchAll = catchAll;
  }

  private async connectTo(ip: string): Promise<SmtpConnection> {
    this.reply.connections! += 1;
    const { config, timeouts } = this;
    return SmtpConnection.connect({ ip, port: config.SMTP_PORT, localAddress: this.sourceIp, timeoutMs: timeouts.connectMs, caps: capsOf(config), signal: this.signal });
  }

  private open(c: SmtpConnection, host: string, useStartTls: boolean): Promise<Opened | Refusal> {
    const { config } = this;
    return openDialogue(c, { servername: isIpLiteral(host) ? undefined : host, heloName: config.PROBE_HELO_NAME, useStartTls, usePipelining: config.PROBE_PIPELINING, timeouts: this.timeouts, now: this.now, observe: this.observe });
  }

  private quitBriefly(conn: SmtpConnection): Promise<void> {
    return quit(conn, Math.min(this.timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
  }

  private refuseAll(refusal: Refusal): void {
    for (const address of this.pending) Object.assign(this.entries.get(address)!, { reply: refusal.reply, stage: refusal.stage, state: 'replied' });
    this.pending = [];
  }

  /** A kept-open connection to the first MX, when the pool has one with room for this batch. */
  private async takeKept(): Promise<PooledConnection | null> {
    const { pool, req } = this;
    const kept = pool && req.mx_hosts.length > 0 ? pool.take(this.sourceIp, req.mx_hosts[0]!) : null;
    if (kept && !worthReusing(kept.errors, this.pending.length, this.catchAll !== null, this.errorBudget)) {
      // Its errors count against this batch too (RSET does not reset them) and leave room for too
      // little of it: a fresh connection instead.
      await this.quitBriefly(kept.conn);
      kept.conn.destroy();
      return null;
    }
    return kept;
  }

  private adopt(kept: PooledConnection): void {
    const { reply } = this;
    this.conn = kept.conn;
    this.conn.adopt(this.signal);
    this.current = { host: kept.host, ip: kept.ip, ext: kept.ext, tls: kept.tls, useStartTls: kept.useStartTls, transactions: kept.transactions, errors: kept.errors };
    Object.assign(reply, { mx_used: kept.host, mx_ip: kept.ip, source_ip: this.conn.localAddress, tls: kept.tls !== null, timings: this.timings });
    if (kept.tls) reply.tls_verified = kept.tls.verified;
    this.notes.push(REUSED_NOTE);
  }

  /** Connects (next MX on failure) and greets; returns the session's end when that already ends it. */
  private async openFresh(): Promise<SessionRun | null> {
    const { req, config, reply } = this;
    // An idle connection to another host of this MX list is closed before a new one opens, so the
    // hosts never see more connections from us than sessions in flight (pool.ts, politeness).
    await this.pool?.evict(this.sourceIp, req.mx_hosts);
    const target = await connectFirst(req.mx_hosts, this.sourceIp, this.deps.resolver, config.PROBE_MAX_CONNECT_ATTEMPTS, (ip) => this.connectTo(ip), reply, this.signal, this.now, config.PROBE_ALLOW_PRIVATE_MX, () => void this.localFailures++);
    if (!target) return this.noMxReachable();
    this.conn = target.conn;
    Object.assign(reply, { mx_used: target.host, mx_ip: target.ip, source_ip: this.conn.localAddress });
    const { opened, useStartTls } = await this.greet(target);
    if ('stage' in opened) {
      this.refuseAll(opened);
      return this.finish('completed');
    }
    if (opened.note) this.notes.push(opened.note);
    reply.tls = opened.tls !== null;
    if (opened.tls) reply.tls_verified = opened.tls.verified;
    this.timings = { connect_ms: round(target.connectMs), greeting_ms: round(opened.timings.greetingMs), ehlo_ms: round(opened.timings.ehloMs), tls_ms: opened.timings.tlsMs === null ? null : round(opened.timings.tlsMs), mail_ms: null };
    reply.timings = this.timings;
    this.current = { host: target.host, ip: target.ip, ext: opened.ext, tls: opened.tls, useStartTls, transactions: 0, errors: 0 };
    return null;
  }

  private noMxReachable(): SessionRun {
    const { signal } = this;
    const errors = this.reply.connect_errors!;
    const tried = errors.map((e) => `${e.host}${e.ip ? ` (${e.ip})` : ''}: ${e.error}`).join(', ');
    const why = signal.aborted ? `${(signal.reason as Error | undefined)?.message ?? 'aborted'}; ` : '';
    const refused = errors.filter((e) => e.error.startsWith(REFUSED_PREFIX));
    // Nothing was dialled and at least one address was refused for its range: say so, so the
    // scheduler neither marks the MX down nor calls the address undeliverable.
    if (!signal.aborted && refused.length > 0 && errors.every((e) => e.ip === null || e.error.startsWith(REFUSED_PREFIX))) {
      return this.finish('mx_refused', `no MX host may be probed: ${tried}`);
    }
    const dialled = errors.filter((e) => e.ip !== null && !e.error.startsWith(REFUSED_PREFIX));
    return this.finish(unreachableOutcome(errors.filter((e) => !e.error.startsWith(REFUSED_PREFIX)), signal.aborted), `${why}no MX host reachable: ${tried || 'none tried'}`, egressFault(dialled.length, this.localFailures));
  }

  /** Greeting and EHLO (and STARTTLS when configured) on a new connection to the target. */
  private async greet(target: Target): Promise<{ opened: Opened | Refusal; useStartTls: boolean }> {
    const useStartTls = this.config.PROBE_STARTTLS;
    try {
      return { opened: await this.open(this.conn!, target.host, useStartTls), useStartTls };
    } catch (err) {
      if (!(err instanceof SessionFailure && err.outcome === 'tls_failed' && this.config.PROBE_TLS_CLEAR_FALLBACK)) throw err;
      // Opportunistic TLS, as MTAs do it: a broken TLS stack is not a reason to lose the answer.
      this.conn!.destroy();
      this.notes.push(`${err.message}; continued in clear on a new connection`);
      this.tlsFallback = true;
      this.conn = await this.connectTo(target.ip);
      return { opened: await this.open(this.conn, target.host, false), useStartTls: false };
    }
  }

  /** Transactions until every address is answered, refused, cut or given up (reconnecting after 452 4.5.3). */
  private async runRounds(reused: boolean): Promise<SessionRun> {
    let limit = Number.POSITIVE_INFINITY;
    for (let round_ = 0; this.pending.length > 0; round_++) {
      if (round_ > 0 && !(await this.reconnect(round_))) break;
      this.dropUtf8Unsupported();
      if (this.pending.length === 0) break;
      const batch = this.pending.slice(0, limit);
      const observedBefore = this.observed.length;
      const { tx, answered } = await this.transact(batch, round_ === 0, reused);
      this.current!.transactions++;
      if (reused && answered === 0 && (tx === null || tx.refusal || tx.cut)) {
        const ended = await this.forgetKept(observedBefore);
        if (ended) return ended;
        reused = false;
        round_ = -1;
        continue;
      }
      reused = false;
      const next = this.settleTransaction(tx!, batch, round_ === 0);
      if (next === 'stop') break;
      if (next !== 'next') return next;
      if (tx!.limitAfter !== null) limit = Math.min(limit, tx!.limitAfter);
      if (this.pending.length > 0 && limit === 0) {
        this.notes.push('the server refused every RCPT as "too many recipients"');
        break;
      }
    }
    return this.finish('completed');
  }

  /** A new connection to the same host for the next round; false when the session ends instead. */
  private async reconnect(round_: number): Promise<boolean> {
    const cur = this.current!;
    if (round_ > this.config.PROBE_MAX_RECONNECTS) {
      this.notes.push(`gave up after ${this.config.PROBE_MAX_RECONNECTS} reconnects for "too many recipients"`);
      return false;
    }
    if (this.keepable) await this.quitBriefly(this.conn!);
    this.keepable = false;
    this.conn!.destroy();
    this.conn = await this.connectTo(cur.ip);
    const again = await this.open(this.conn, cur.host, cur.useStartTls);
    if ('stage' in again) {
      this.refuseAll(again);
      return false;
    }
    this.current = { ...cur, ext: again.ext, tls: again.tls, transactions: 0, errors: 0 };
    return true;
  }

  private dropUtf8Unsupported(): void {
    const ext = this.current!.ext;
    this.pending = this.pending.filter((address) => {
      if (ext.smtputf8 || !needsSmtpUtf8(address)) return true;
      this.entries.get(address)!.state = 'utf8_unsupported';
      return false;
    });
  }

  /** One MAIL/RCPT transaction; on a reused connection that failed before any answer, tx is null. */
  private async transact(batch: string[], first: boolean, reused: boolean): Promise<{ tx: Transaction | null; answered: number }> {
    let answered = 0;
    let tx: Transaction | null = null;
    try {
      tx = await transaction(this.conn!, this.current!.ext, {
        mailFrom: this.req.mail_from,
        catchAll: first ? this.catchAll : null,
        rcpts: batch,
        timeouts: this.timeouts,
        now: this.now,
        observe: this.observe,
        keepOpen: this.pool !== undefined,
        // A connection that drew errors carries only as many RCPTs as the host's budget leaves room for.
        errorRoom: errorRoom(this.current!.errors, this.errorBudget),
        onCatchAll: (r, ms) => {
          answered++;
          this.reply.catch_all = { address: this.catchAll!, reply: r, ms: round(ms) };
        },
        onRcpt: (address, r, ms) => {
          answered++;
          Object.assign(this.entries.get(address)!, { reply: r, ms, stage: 'rcpt', state: 'replied' });
        },
      });
    } catch (err) {
      if (!(reused && answered === 0 && err instanceof SessionFailure && !this.signal.aborted)) throw err;
    }
    return { tx, answered };
  }

  /**
   * A kept connection the server closed or refused while it was idle says nothing about the
   * addresses: forget what it said and run the session on a fresh connection.
   */
  private forgetKept(observedBefore: number): Promise<SessionRun | null> {
    this.observed.length = observedBefore;
    this.keepable = false;
    this.conn!.destroy();
    this.notes.splice(this.notes.indexOf(REUSED_NOTE), 1);
    delete this.reply.tls_verified;
    return this.openFresh();
  }

  /** What a transaction's answers leave to do: another round ('next'), nothing ('stop'), or the session's end. */
  private settleTransaction(tx: Transaction, batch: string[], first: boolean): 'next' | 'stop' | SessionRun {
    const { entries, notes } = this;
    const current = this.current!;
    this.keepable = tx.reusable;
    current.errors += tx.errors;
    if (tx.cut) {
      // Whatever the server did not answer is left for a new session (the scheduler's), never judged.
      const left = [...tx.deferred, ...this.pending.filter((address) => entries.get(address)!.state === 'not_attempted')];
      for (const address of left) entries.set(address, { reply: null, ms: 0, state: 'unanswered' });
      this.reply.cut = { stage: tx.cut.stage, reply: tx.cut.reply, errors: current.errors };
      notes.push(`the server closed the session (${tx.cut.reply.code}) after ${current.errors} error replies; ${left.length} addresses unanswered`);
      this.pending = [];
      this.keepable = false;
      return 'stop';
    }
    if (first) this.timings.mail_ms = round(tx.mailMs);
    if (tx.refusal) {
      this.refuseAll(tx.refusal);
      if (this.tlsFallback && tx.refusal.reply.code === 530) return this.finish('tls_failed', 'the server requires STARTTLS and the TLS handshake failed');
      return 'stop';
    }
    if (tx.catchAllAccepted) {
      for (const address of this.pending) entries.get(address)!.state = 'skipped_catch_all';
      this.pending = [];
      return 'stop';
    }
    if (tx.unsent.length > 0) notes.push(`${tx.unsent.length} addresses moved to a fresh connection: the kept one's errors left no room under the error budget (${this.errorBudget})`);
    this.pending = [...tx.deferred, ...tx.unsent, ...this.pending.slice(batch.length)];
    return 'next';
  }

  /**
   * Keeps the connection in the pool only after a clean RSET, while the session's deadline did not
   * cut it, and while its errors leave room for at least one more RCPT (else no session could take it).
   */
  private async release(): Promise<void> {
    const { pool, conn, current, keepable, signal } = this;
    if (pool && conn && current && keepable && !signal.aborted && hasErrorRoom(current.errors, 1, this.errorBudget)) await pool.put(this.sourceIp, { ...current, conn });
    else {
      if (pool && conn && keepable && !signal.aborted) await this.quitBriefly(conn);
      conn?.destroy();
    }
  }
}

async function connectFirst(
  hosts: readonly string[],
  sourceIp: string | undefined,
  resolver: HostResolver,
  maxAttempts: number,
  connectTo: (ip: string) => Promise<SmtpConnection>,
  reply: ProbeSessionReply,
  signal: AbortSignal,
  now: () => number,
  allowPrivate: boolean,
  onLocalFailure: () => void,
): Promise<Target | null> {
  let attempts = 0;
  for (const host of hosts) {
    let ips: string[];
    try {
      ips = await resolver.resolve(host, sourceIp);
    } catch (err) {
      reply.connect_errors!.push({ host, ip: null, error: (err as Error).message });
      continue;
    }
    if (ips.length === 0) reply.connect_errors!.push({ host, ip: null, error: 'host name has no address' });
    for (const ip of ips) {
      // An MX pointing at our own network (loopback, RFC 1918, metadata...) is never dialled; one
      // classification for the whole platform (@dv/net's, also the webhook SSRF guard's).
      const range = allowPrivate ? 'public' : classifyAddress(ip);
      if (range !== 'public') {
        reply.connect_errors!.push({ host, ip, error: `${REFUSED_PREFIX} ${range} address (PROBE_ALLOW_PRIVATE_MX is off)` });
        continue;
      }
      if (signal.aborted || attempts >= maxAttempts) return null;
      attempts += 1;
      const t = now();
      try {
        const conn = await connectTo(ip);
        return { conn, host, ip, connectMs: now() - t };
      } catch (err) {
        if (!(err instanceof SessionFailure)) throw err;
        if (err.local) onLocalFailure();
        reply.connect_errors!.push({ host, ip, error: err.message });
      }
    }
  }
  return null;
}

export function capsOf(config: ProbeConfig): { maxLineBytes: number; maxLines: number; maxBufferedBytes: number } {
  return { maxLineBytes: config.PROBE_MAX_REPLY_LINE_BYTES, maxLines: config.PROBE_MAX_REPLY_LINES, maxBufferedBytes: config.PROBE_MAX_BUFFERED_BYTES };
}

function isIpLiteral(host: string): boolean {
  return /^\[.*\]$|^\d{1,3}(\.\d{1,3}){3}$|:/.test(host);
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 10) / 10);
}
