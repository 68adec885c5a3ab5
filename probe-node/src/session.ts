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
  const now = deps.now ?? (() => performance.now());
  const { config } = deps;
  const started = now();
  const timeouts = effectiveTimeouts(req.timeouts, config);
  const observed: ObservedReply[] = [];
  const observe = (stage: Stage, reply: SmtpReply): void => void observed.push({ stage, reply });

  const entries = new Map<string, Entry>();
  for (const address of req.addresses) {
    if (!entries.has(address)) entries.set(address, { reply: null, ms: 0, state: addressProblem(address) === null ? 'not_attempted' : 'invalid_address' });
  }
  let pending = [...entries].filter(([, e]) => e.state === 'not_attempted').map(([a]) => a);

  const reply: ProbeSessionReply = {
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
  const notes: string[] = [];
  // Connect attempts that failed on this node's own side (SessionFailure.local).
  let localFailures = 0;
  const finish = (outcome: Outcome, detail?: string, fault?: ProbeSessionReply['node_fault']): SessionRun => {
    if (detail) notes.unshift(detail);
    reply.outcome = outcome;
    // A session this node cut while stopping says nothing about the host (docs/probe-node.md "Outcomes").
    const nodeFault = outcome !== 'completed' && deps.signal?.aborted ? 'shutdown' : fault;
    if (nodeFault) reply.node_fault = nodeFault;
    reply.results = req.addresses.map((address) => {
      const e = entries.get(address)!;
      return { address, reply: e.reply, ms: round(e.ms), state: e.state, ...(e.stage ? { stage: e.stage } : {}) };
    });
    reply.duration_ms = round(now() - started);
    if (notes.length > 0) reply.detail = notes.join('; ').slice(0, 1_000);
    return { reply, observed };
  };

  if (req.mail_from !== '' && addressProblem(req.mail_from) !== null) return finish('protocol_error', 'mail_from cannot be sent as an SMTP path (control character, angle bracket or malformed)');
  const source = chooseSourceIp(req.source_ip, config.PROBE_SOURCE_IPS, req.domain);
  if (!source.ok) return finish('protocol_error', source.detail);
  if (pending.length === 0) return finish('protocol_error', 'no address can be sent as an SMTP path; nothing was sent');

  let catchAll = req.catch_all_probe ? catchAllAddress(req.domain, PROBE_DEFAULTS.catchAllLocalPartChars) : null;
  if (catchAll !== null && addressProblem(catchAll) !== null) {
    notes.push('catch-all probe skipped: the domain cannot be sent as an SMTP path');
    catchAll = null;
  }
  if (catchAll !== null) reply.catch_all = { address: catchAll, reply: null };

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`session time limit of ${timeouts.sessionMs} ms reached`)), timeouts.sessionMs);
  const signal = deps.signal ? AbortSignal.any([deadline.signal, deps.signal]) : deadline.signal;
  let conn: SmtpConnection | null = null;

  const connectTo = async (ip: string): Promise<SmtpConnection> => {
    reply.connections! += 1;
    return SmtpConnection.connect({ ip, port: config.SMTP_PORT, localAddress: source.ip, timeoutMs: timeouts.connectMs, caps: capsOf(config), signal });
  };
  const open = (c: SmtpConnection, host: string, useStartTls: boolean): Promise<Opened | Refusal> =>
    openDialogue(c, { servername: isIpLiteral(host) ? undefined : host, heloName: config.PROBE_HELO_NAME, useStartTls, usePipelining: config.PROBE_PIPELINING, timeouts, now, observe });
  const refuseAll = (refusal: Refusal): void => {
    for (const address of pending) Object.assign(entries.get(address)!, { reply: refusal.reply, stage: refusal.stage, state: 'replied' });
    pending = [];
  };

  // The connection this session runs on, described for the pool (set once it is open).
  let current: Omit<PooledConnection, 'conn'> | null = null;
  let keepable = false;
  const pool = deps.pool;
  const errorBudget = req.error_budget ?? config.PROBE_ASSUMED_ERROR_BUDGET;

  /** Connects (next MX on failure) and greets; returns the session's end when that already ends it. */
  const openFresh = async (): Promise<SessionRun | null> => {
    // An idle connection to another host of this MX list is closed before a new one opens, so the
    // hosts never see more connections from us than sessions in flight (pool.ts, politeness).
    await pool?.evict(source.ip, req.mx_hosts);
    const target = await connectFirst(req.mx_hosts, source.ip, deps.resolver, config.PROBE_MAX_CONNECT_ATTEMPTS, connectTo, reply, signal, now, config.PROBE_ALLOW_PRIVATE_MX, () => void localFailures++);
    if (!target) {
      const tried = reply.connect_errors!.map((e) => `${e.host}${e.ip ? ` (${e.ip})` : ''}: ${e.error}`).join(', ');
      const why = signal.aborted ? `${(signal.reason as Error | undefined)?.message ?? 'aborted'}; ` : '';
      const errors = reply.connect_errors!;
      const refused = errors.filter((e) => e.error.startsWith(REFUSED_PREFIX));
      // Nothing was dialled and at least one address was refused for its range: say so, so the
      // scheduler neither marks the MX down nor calls the address undeliverable.
      if (!signal.aborted && refused.length > 0 && errors.every((e) => e.ip === null || e.error.startsWith(REFUSED_PREFIX))) {
        return finish('mx_refused', `no MX host may be probed: ${tried}`);
      }
      const dialled = errors.filter((e) => e.ip !== null && !e.error.startsWith(REFUSED_PREFIX));
      return finish(unreachableOutcome(errors.filter((e) => !e.error.startsWith(REFUSED_PREFIX)), signal.aborted), `${why}no MX host reachable: ${tried || 'none tried'}`, egressFault(dialled.length, localFailures));
    }
    conn = target.conn;
    Object.assign(reply, { mx_used: target.host, mx_ip: target.ip, source_ip: conn.localAddress });

    let useStartTls = config.PROBE_STARTTLS;
    let opened: Opened | Refusal;
    try {
      opened = await open(conn, target.host, useStartTls);
    } catch (err) {
      if (!(err instanceof SessionFailure && err.outcome === 'tls_failed' && config.PROBE_TLS_CLEAR_FALLBACK)) throw err;
      // Opportunistic TLS, as MTAs do it: a broken TLS stack is not a reason to lose the answer.
      conn.destroy();
      notes.push(`${err.message}; continued in clear on a new connection`);
      tlsFallback = true;
      useStartTls = false;
      conn = await connectTo(target.ip);
      opened = await open(conn, target.host, false);
    }
    if ('stage' in opened) {
      refuseAll(opened);
      return finish('completed');
    }
    if (opened.note) notes.push(opened.note);
    reply.tls = opened.tls !== null;
    if (opened.tls) reply.tls_verified = opened.tls.verified;
    timings = { connect_ms: round(target.connectMs), greeting_ms: round(opened.timings.greetingMs), ehlo_ms: round(opened.timings.ehloMs), tls_ms: opened.timings.tlsMs === null ? null : round(opened.timings.tlsMs), mail_ms: null };
    reply.timings = timings;
    current = { host: target.host, ip: target.ip, ext: opened.ext, tls: opened.tls, useStartTls, transactions: 0, errors: 0 };
    return null;
  };

  let tlsFallback = false;
  let timings: NonNullable<ProbeSessionReply['timings']> = { connect_ms: 0, greeting_ms: 0, ehlo_ms: 0, tls_ms: null, mail_ms: null };
  try {
    let kept = pool && req.mx_hosts.length > 0 ? pool.take(source.ip, req.mx_hosts[0]!) : null;
    if (kept && !worthReusing(kept.errors, pending.length, catchAll !== null, errorBudget)) {
      // Its errors count against this batch too (RSET does not reset them) and leave room for too
      // little of it: a fresh connection instead.
      await quit(kept.conn, Math.min(timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
      kept.conn.destroy();
      kept = null;
    }
    let reused = kept !== null;
    if (kept) {
      conn = kept.conn;
      conn.adopt(signal);
      current = { host: kept.host, ip: kept.ip, ext: kept.ext, tls: kept.tls, useStartTls: kept.useStartTls, transactions: kept.transactions, errors: kept.errors };
      Object.assign(reply, { mx_used: kept.host, mx_ip: kept.ip, source_ip: conn.localAddress, tls: kept.tls !== null, timings });
      if (kept.tls) reply.tls_verified = kept.tls.verified;
      notes.push(REUSED_NOTE);
    } else {
      const ended = await openFresh();
      if (ended) return ended;
    }

    let limit = Number.POSITIVE_INFINITY;
    for (let round_ = 0; pending.length > 0; round_++) {
      const cur = current!;
      if (round_ > 0) {
        if (round_ > config.PROBE_MAX_RECONNECTS) {
          notes.push(`gave up after ${config.PROBE_MAX_RECONNECTS} reconnects for "too many recipients"`);
          break;
        }
        if (keepable) await quit(conn!, Math.min(timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
        keepable = false;
        conn!.destroy();
        conn = await connectTo(cur.ip);
        const again = await open(conn, cur.host, cur.useStartTls);
        if ('stage' in again) {
          refuseAll(again);
          break;
        }
        current = { ...cur, ext: again.ext, tls: again.tls, transactions: 0, errors: 0 };
      }
      const ext = current!.ext;
      pending = pending.filter((address) => {
        if (ext.smtputf8 || !needsSmtpUtf8(address)) return true;
        entries.get(address)!.state = 'utf8_unsupported';
        return false;
      });
      if (pending.length === 0) break;
      const batch = pending.slice(0, limit);
      const observedBefore = observed.length;
      let answered = 0;
      let tx: Awaited<ReturnType<typeof transaction>> | null = null;
      try {
        tx = await transaction(conn!, ext, {
          mailFrom: req.mail_from,
          catchAll: round_ === 0 ? catchAll : null,
          rcpts: batch,
          timeouts,
          now,
          observe,
          keepOpen: pool !== undefined,
          // A connection that drew errors carries only as many RCPTs as the host's budget leaves room for.
          errorRoom: errorRoom(current!.errors, errorBudget),
          onCatchAll: (r, ms) => {
            answered++;
            reply.catch_all = { address: catchAll!, reply: r, ms: round(ms) };
          },
          onRcpt: (address, r, ms) => {
            answered++;
            Object.assign(entries.get(address)!, { reply: r, ms, stage: 'rcpt', state: 'replied' });
          },
        });
      } catch (err) {
        if (!(reused && answered === 0 && err instanceof SessionFailure && !signal.aborted)) throw err;
      }
      current!.transactions++;
      if (reused && answered === 0 && (tx === null || tx.refusal || tx.cut)) {
        // A kept connection the server closed or refused while it was idle says nothing about the
        // addresses: forget what it said and run the session on a fresh connection.
        observed.length = observedBefore;
        reused = false;
        keepable = false;
        conn!.destroy();
        notes.splice(notes.indexOf(REUSED_NOTE), 1);
        delete reply.tls_verified;
        const ended = await openFresh();
        if (ended) return ended;
        round_ = -1;
        continue;
      }
      reused = false;
      tx = tx!;
      keepable = tx.reusable;
      current!.errors += tx.errors;
      if (tx.cut) {
        // Whatever the server did not answer is left for a new session (the scheduler's), never judged.
        const left = [...tx.deferred, ...pending.filter((address) => entries.get(address)!.state === 'not_attempted')];
        for (const address of left) entries.set(address, { reply: null, ms: 0, state: 'unanswered' });
        reply.cut = { stage: tx.cut.stage, reply: tx.cut.reply, errors: current!.errors };
        notes.push(`the server closed the session (${tx.cut.reply.code}) after ${current!.errors} error replies; ${left.length} addresses unanswered`);
        pending = [];
        keepable = false;
        break;
      }
      if (round_ === 0) timings.mail_ms = round(tx.mailMs);
      if (tx.refusal) {
        if (tlsFallback && tx.refusal.reply.code === 530) {
          refuseAll(tx.refusal);
          return finish('tls_failed', 'the server requires STARTTLS and the TLS handshake failed');
        }
        refuseAll(tx.refusal);
        break;
      }
      if (tx.catchAllAccepted) {
        for (const address of pending) entries.get(address)!.state = 'skipped_catch_all';
        pending = [];
        break;
      }
      if (tx.unsent.length > 0) notes.push(`${tx.unsent.length} addresses moved to a fresh connection: the kept one's errors left no room under the error budget (${errorBudget})`);
      pending = [...tx.deferred, ...tx.unsent, ...pending.slice(batch.length)];
      if (tx.limitAfter !== null) limit = Math.min(limit, tx.limitAfter);
      if (pending.length > 0 && limit === 0) {
        notes.push('the server refused every RCPT as "too many recipients"');
        break;
      }
    }
    return finish('completed');
  } catch (err) {
    keepable = false;
    // A deadline or shutdown that lands between connections still means "timeout".
    if (err instanceof SessionFailure) return finish(signal.aborted ? 'timeout' : err.outcome, err.message, err.local ? 'egress' : undefined);
    // Not a server's doing (a bug): still one clear reply, never a crash of the node.
    return finish('protocol_error', `internal error: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    // Kept only after a clean RSET, while the session's deadline did not cut it, and while its
    // errors leave room for at least one more RCPT (else no session could take it).
    if (pool && conn && current && keepable && !signal.aborted && hasErrorRoom(current.errors, 1, errorBudget)) await pool.put(source.ip, { ...current, conn });
    else {
      if (pool && conn && keepable && !signal.aborted) await quit(conn, Math.min(timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
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
