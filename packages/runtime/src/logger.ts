import { pino, type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from './request-id.ts';

export type { Logger } from 'pino';

/** JSON logs on stdout (or `destination`, for tests), one line each, with the service name on every line. */
export function createLogger(service: string, level: string = 'info', destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line written while a request's work runs names the request (request-id.ts).
    mixin: () => {
      const id = currentRequestId();
      return id ? { request_id: id } : {};
    },
    // Keys and secrets never reach a log line, whatever object is logged.
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.secret', '*.password', 'key', 'apiKey'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
