// What a scripted host observed, kept so tests can assert politeness and wire hygiene.
export interface SmtpSessionLog {
  id: number;
  clientIp: string;
  clientPort: number;
  startedAtMs: number;
  endedAtMs?: number;
  tls: boolean;
  // Error replies (4xx/5xx) sent on this connection so far, the count the error limits use.
  errors: number;
  // Lines exactly as received, without the CRLF that ended them; a bare CR or LF stays inside the line.
  commands: string[];
  // One entry per reply; a multi-line reply is one entry joined with CRLF.
  replies: string[];
}

export interface SmtpHostStats {
  name: string;
  ip: string;
  sessionsTotal: number;
  sessionsCurrent: number;
  maxConcurrentSessions: number;
  // Sessions opened while `behaviour.maxConcurrentSessions` were already open (never refused).
  concurrencyViolations: number;
  dataCommands: number;
  // All command lines of all sessions, in arrival order.
  commands: string[];
  sessions: SmtpSessionLog[];
}

export function emptyStats(name: string, ip: string): SmtpHostStats {
  return {
    name,
    ip,
    sessionsTotal: 0,
    sessionsCurrent: 0,
    maxConcurrentSessions: 0,
    concurrencyViolations: 0,
    dataCommands: 0,
    commands: [],
    sessions: [],
  };
}

// Clears counters in place: callers hold the object from `WorldHandle.hosts`.
export function resetStats(stats: SmtpHostStats): void {
  stats.sessionsTotal = 0;
  stats.maxConcurrentSessions = stats.sessionsCurrent;
  stats.concurrencyViolations = 0;
  stats.dataCommands = 0;
  stats.commands.length = 0;
  stats.sessions.length = 0;
}

export class StatsRecorder {
  readonly stats: SmtpHostStats;
  private readonly concurrencyLimit: number | undefined;
  private nextId = 1;

  constructor(stats: SmtpHostStats, concurrencyLimit: number | undefined) {
    this.stats = stats;
    this.concurrencyLimit = concurrencyLimit;
  }

  open(clientIp: string, clientPort: number): SmtpSessionLog {
    const { stats } = this;
    if (this.concurrencyLimit !== undefined && stats.sessionsCurrent >= this.concurrencyLimit) stats.concurrencyViolations += 1;
    stats.sessionsTotal += 1;
    stats.sessionsCurrent += 1;
    stats.maxConcurrentSessions = Math.max(stats.maxConcurrentSessions, stats.sessionsCurrent);
    const log: SmtpSessionLog = { id: this.nextId, clientIp, clientPort, startedAtMs: Date.now(), tls: false, errors: 0, commands: [], replies: [] };
    this.nextId += 1;
    stats.sessions.push(log);
    return log;
  }

  close(log: SmtpSessionLog): void {
    if (log.endedAtMs !== undefined) return;
    log.endedAtMs = Date.now();
    this.stats.sessionsCurrent -= 1;
  }

  command(log: SmtpSessionLog, line: string): void {
    log.commands.push(line);
    this.stats.commands.push(line);
    if (/^DATA\b/i.test(line) || /^BDAT\b/i.test(line)) this.stats.dataCommands += 1;
  }

  reply(log: SmtpSessionLog, text: string): void {
    log.replies.push(text);
  }
}
