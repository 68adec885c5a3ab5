import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** JSON logs on stdout, one line each, with the service name on every line. */
export function createLogger(service: string, level: string = 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Keys and secrets never reach a log line, whatever object is logged.
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.secret', '*.password', 'key', 'apiKey'], censor: '[redacted]' },
  });
}
