// The SMTP dialogue on one open connection: greeting, EHLO (HELO fallback), STARTTLS, then one
// MAIL / catch-all RCPT / RCPT… / RSET / QUIT transaction. Never DATA: the command set has none.
//
// With PIPELINING (RFC 2920) MAIL and the catch-all RCPT go in one write, then all real RCPTs in
// one write (on a kept connection that drew errors: in groups sized to the room its errors leave
// under the host's error budget), then RSET+QUIT: one round trip per group instead of per command.
import type { SmtpReply } from '@dv/contracts';
import { parseReply } from '@dv/verdict';
import type { Command } from './smtp/commands.ts';
import { needsSmtpUtf8 } from './smtp/commands.ts';
import type { SmtpConnection, TlsInfo } from './smtp/connection.ts';
import type { RawReply } from './smtp/reply-reader.ts';
import { isTooManyRecipients, shouldFallBackToHelo } from './plan.ts';
import type { Timeouts } from './plan.ts';
import { PROBE_DEFAULTS } from './defaults.ts';

export type Stage = 'greeting' | 'ehlo' | 'mail' | 'rcpt';

export interface Extensions {
  pipelining: boolean;
  startTls: boolean;
  smtputf8: boolean;
}

export interface Refusal {
  stage: Stage;
  reply: SmtpReply;
}

export interface OpenOptions {
  /** MX host name, for SNI (undefined for an IP literal). */
  servername: string | undefined;
  heloName: string;
  useStartTls: boolean;
  usePipelining: boolean;
  timeouts: Timeouts;
  now: () => number;
  /** Every SMTP reply that says something about the server (for metrics and provider health). */
  observe: (stage: Stage, reply: SmtpReply) => void;
}

export interface Opened {
  ext: Extensions;
  tls: TlsInfo | null;
  /** Why the dialogue is in clear although STARTTLS was offered, if it is. */
  note?: string;
  timings: { greetingMs: number; ehloMs: number; tlsMs: number | null };
}

/** Converts a raw reply to the contract's shape (verdict's parser; text capped for the schema). */
export function toSmtpReply(raw: RawReply): SmtpReply {
  const parsed = parseReply(raw.lines);
  const text = (parsed?.text ?? raw.lines.join(' ')).slice(0, PROBE_DEFAULTS.maxReplyTextChars);
  return { code: raw.code, enhanced: parsed?.enhanced ?? null, text };
}

const ok = (r: RawReply): boolean => r.code >= 200 && r.code < 300;

/** Best-effort QUIT: politeness only, so failures are ignored and the wait is short. */
export async function quit(conn: SmtpConnection, timeoutMs: number): Promise<void> {
  try {
    conn.send([{ verb: 'QUIT' }]);
    await conn.read(timeoutMs, 'QUIT');
  } catch {
    // the server may close first; nothing depends on its 221
  }
}

/** Greeting, EHLO (or HELO), STARTTLS when offered and wanted. Returns the refusal that ended it, if any. */
export async function openDialogue(conn: SmtpConnection, o: OpenOptions): Promise<Opened | Refusal> {
  const t0 = o.now();
  const greeting = await conn.read(o.timeouts.greetingMs, 'greeting');
  const greetingMs = o.now() - t0;
  if (!ok(greeting)) {
    const reply = toSmtpReply(greeting);
    o.observe('greeting', reply);
    // 421 means the server is closing; anything else deserves a QUIT (RFC 5321 §3.1).
    if (greeting.code !== 421) await quit(conn, Math.min(o.timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
    return { stage: 'greeting', reply };
  }
  const t1 = o.now();
  const hello = await sayHello(conn, o);
  const ehloMs = o.now() - t1;
  if ('stage' in hello) return hello;
  let ext = hello;
  if (!(o.useStartTls && ext.startTls)) return { ext, tls: null, timings: { greetingMs, ehloMs, tlsMs: null } };

  const t2 = o.now();
  conn.sendStartTls();
  const ready = await conn.read(o.timeouts.commandMs, 'STARTTLS');
  if (ready.code !== 220) {
    conn.resumeClear();
    // 454 "TLS not available": opportunistic TLS, so continue in clear.
    return { ext, tls: null, note: `STARTTLS refused (${ready.code})`, timings: { greetingMs, ehloMs, tlsMs: null } };
  }
  const tls = await conn.startTls(o.servername, o.timeouts.commandMs);
  const tlsMs = o.now() - t2;
  // RFC 3207 §4.2: forget what was learned in clear and greet again.
  const again = await sayHello(conn, o);
  if ('stage' in again) return again;
  ext = again;
  return { ext, tls, timings: { greetingMs, ehloMs, tlsMs } };
}

async function sayHello(conn: SmtpConnection, o: OpenOptions): Promise<Extensions | Refusal> {
  conn.send([{ verb: 'EHLO', name: o.heloName }]);
  const ehlo = await conn.read(o.timeouts.commandMs, 'EHLO');
  if (ok(ehlo)) {
    const ext = extensionsOf(ehlo);
    return { ...ext, pipelining: ext.pipelining && o.usePipelining };
  }
  if (shouldFallBackToHelo(ehlo.code)) {
    conn.send([{ verb: 'HELO', name: o.heloName }]);
    const helo = await conn.read(o.timeouts.commandMs, 'HELO');
    if (ok(helo)) return { pipelining: false, startTls: false, smtputf8: false };
    const reply = toSmtpReply(helo);
    o.observe('ehlo', reply);
    await quit(conn, Math.min(o.timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
    return { stage: 'ehlo', reply };
  }
  const reply = toSmtpReply(ehlo);
  o.observe('ehlo', reply);
  return { stage: 'ehlo', reply };
}

export function extensionsOf(ehlo: RawReply): Extensions {
  const keywords = new Set(ehlo.lines.slice(1).map((l) => l.slice(4).trim().split(/\s+/)[0]!.toUpperCase()));
  return { pipelining: keywords.has('PIPELINING'), startTls: keywords.has('STARTTLS'), smtputf8: keywords.has('SMTPUTF8') };
}

export interface TransactionOptions {
  mailFrom: string;
  /** The random address of the catch-all probe, or null to skip it. */
  catchAll: string | null;
  rcpts: readonly string[];
  timeouts: Timeouts;
  now: () => number;
  observe: (stage: Stage, reply: SmtpReply) => void;
  onCatchAll: (reply: SmtpReply, ms: number) => void;
  onRcpt: (address: string, reply: SmtpReply, ms: number) => void;
  /** End with RSET only, leaving the connection open for another transaction (pool.ts). */
  keepOpen?: boolean;
  /**
   * Error replies this transaction may draw at most, the catch-all probe's included (absent: no
   * bound). A harvest defence counts errors per connection, so on a kept connection that already
   * drew some, the RCPTs go out in groups no larger than the room left (every one may be
   * rejected), and those that no longer fit come back in `unsent` for another connection.
   */
  errorRoom?: number;
}

export interface TransactionResult {
  /** Set when MAIL FROM was refused: the reply stands for every address of the transaction. */
  refusal?: Refusal;
  catchAllAccepted: boolean;
  /** RCPTs (catch-all probe included) answered before the first "too many recipients"; null when none came. */
  limitAfter: number | null;
  /** Addresses answered "too many recipients": to be sent again on a new connection. */
  deferred: string[];
  /** MAIL FROM round trip (with PIPELINING, of the first group). */
  mailMs: number;
  /** keepOpen was asked and the RSET was answered 250: the connection may carry another transaction. */
  reusable: boolean;
  /** Set when the server closed the channel (421) before it answered every RCPT: the rest is unanswered. */
  cut?: Refusal;
  /** Error replies (4xx/5xx) the transaction drew, as a harvest defence counts them (countsAsError). */
  errors: number;
  /** RCPTs not sent because the error room ran out (errorRoom): to be sent on another connection. */
  unsent: string[];
}

/**
 * One transaction. Replies are handed to the callbacks as they arrive, so a session that dies
 * half-way still reports what it learned. Ends with RSET and QUIT (RSET alone with keepOpen);
 * their failures do not matter.
 */
export async function transaction(conn: SmtpConnection, ext: Extensions, o: TransactionOptions): Promise<TransactionResult> {
  const smtputf8 = ext.smtputf8 && (needsSmtpUtf8(o.mailFrom) || o.rcpts.some(needsSmtpUtf8) || (o.catchAll !== null && needsSmtpUtf8(o.catchAll)));
  const mail: Command = { verb: 'MAIL', from: o.mailFrom, smtputf8 };
  const result: TransactionResult = { catchAllAccepted: false, limitAfter: null, deferred: [], mailMs: 0, reusable: false, errors: 0, unsent: [] };
  let answered = 0;
  const room = o.errorRoom ?? Number.POSITIVE_INFINITY;
  /** RCPTs that may still go out now: each may draw an error, and those on the wire are not answered yet. */
  const fit = (onWire: number): number => Math.max(0, room - result.errors - onWire);

  const t0 = o.now();
  const probe: Command[] = o.catchAll !== null ? [{ verb: 'RCPT', to: o.catchAll }] : [];
  // Without the catch-all probe, MAIL and the RCPTs (as many as the error room allows) share one group.
  const early = ext.pipelining && o.catchAll === null ? o.rcpts.slice(0, fit(0)) : [];
  const firstGroup = ext.pipelining ? [mail, ...probe, ...early.map((to): Command => ({ verb: 'RCPT', to }))] : [mail];
  conn.send(firstGroup);
  const mailReply = await conn.read(o.timeouts.commandMs, 'MAIL FROM');
  result.mailMs = o.now() - t0;
  if (!ok(mailReply)) {
    const reply = toSmtpReply(mailReply);
    if (countsAsError(reply)) result.errors += 1;
    o.observe('mail', reply);
    result.refusal = { stage: 'mail', reply };
    await quit(conn, Math.min(o.timeouts.commandMs, PROBE_DEFAULTS.quitTimeoutMs));
    return result;
  }

  if (o.catchAll !== null) {
    const t1 = o.now();
    if (!ext.pipelining) conn.send(probe);
    const answer = await readRcpt(conn, o, result);
    if (answer === undefined) return result;
    const { reply, tooMany } = answer;
    o.onCatchAll(reply, o.now() - (ext.pipelining ? t0 : t1));
    if (tooMany) result.limitAfter = 0;
    else answered += 1;
    // 250/251 only: a 252 "cannot verify" says nothing about the domain accepting everything.
    if (reply.code === 250 || reply.code === 251) {
      result.catchAllAccepted = true;
      result.reusable = await endTransaction(conn, ext, o.timeouts, o.keepOpen === true);
      return result;
    }
  }

  // RCPTs on the wire (sent, not answered yet) go up to `sent`; the next group goes out once they
  // are answered, sized to the error room left (without a bound: all at once).
  let sent = early.length;
  let groupStart = t0;
  for (let i = 0; i < o.rcpts.length; i++) {
    const to = o.rcpts[i]!;
    if (!ext.pipelining && result.limitAfter !== null) {
      // One at a time, the rest would only draw the same 452: keep them for the next connection.
      result.deferred.push(to);
      continue;
    }
    if (i === sent) {
      const n = Math.min(o.rcpts.length - i, ext.pipelining ? fit(0) : Math.min(1, fit(0)));
      if (n === 0) {
        // Another error could reach the host's budget: the rest go to another connection.
        result.unsent = o.rcpts.slice(i);
        break;
      }
      conn.send(o.rcpts.slice(i, i + n).map((rcpt): Command => ({ verb: 'RCPT', to: rcpt })));
      sent = i + n;
      groupStart = o.now();
    }
    const answer = await readRcpt(conn, o, result);
    if (answer === undefined) return result;
    const { reply, tooMany } = answer;
    o.onRcpt(to, reply, o.now() - groupStart);
    if (tooMany) {
      result.limitAfter ??= answered;
      result.deferred.push(to);
    } else if (result.limitAfter === null) {
      answered += 1;
    }
  }
  result.reusable = await endTransaction(conn, ext, o.timeouts, o.keepOpen === true);
  return result;
}

/**
 * Reads the next RCPT reply and books what every RCPT reply books (observed, counted as an error
 * when it is one). Undefined when it is a 421: not an answer about the address but the channel
 * closing (RFC 5321 §3.8), often a directory-harvest defence's "too many errors"; `result.cut`
 * is set and this RCPT and the rest stay unanswered.
 */
async function readRcpt(conn: SmtpConnection, o: TransactionOptions, result: TransactionResult): Promise<{ reply: SmtpReply; tooMany: boolean } | undefined> {
  const raw = await conn.read(o.timeouts.commandMs, 'RCPT');
  const reply = toSmtpReply(raw);
  o.observe('rcpt', reply);
  if (raw.code === 421) {
    result.cut = { stage: 'rcpt', reply };
    return undefined;
  }
  if (countsAsError(reply)) result.errors += 1;
  return { reply, tooMany: isTooManyRecipients(raw.code, reply.enhanced, reply.text) };
}

/**
 * What a harvest defence counts against a connection (Postfix smtpd_hard_error_limit): every
 * 4xx/5xx but the closing 421 and "too many recipients" (Postfix counts those only past its
 * overshoot limit of 1,000). Counting more would make the scheduler learn a budget too high.
 */
export function countsAsError(reply: SmtpReply): boolean {
  return reply.code >= 400 && reply.code < 600 && reply.code !== 421 && !isTooManyRecipients(reply.code, reply.enhanced, reply.text);
}

/** RSET, then QUIT unless the connection is to be kept; returns whether it may be kept (RSET got 250). */
async function endTransaction(conn: SmtpConnection, ext: Extensions, t: Timeouts, keepOpen: boolean): Promise<boolean> {
  const wait = Math.min(t.commandMs, PROBE_DEFAULTS.quitTimeoutMs);
  try {
    if (keepOpen) {
      conn.send([{ verb: 'RSET' }]);
      const rset = await conn.read(wait, 'RSET');
      if (ok(rset)) return true;
      await quit(conn, wait);
      return false;
    }
    if (ext.pipelining) {
      conn.send([{ verb: 'RSET' }, { verb: 'QUIT' }]);
      await conn.read(wait, 'RSET');
      await conn.read(wait, 'QUIT');
    } else {
      conn.send([{ verb: 'RSET' }]);
      await conn.read(wait, 'RSET');
      conn.send([{ verb: 'QUIT' }]);
      await conn.read(wait, 'QUIT');
    }
  } catch {
    // every answer is in; a server that hangs up instead of saying goodbye changes nothing
  }
  return false;
}
