import { ApiError } from './problem.ts';

// What a failure thrown by a backing server's client means for the request that met it: one table
// for every service and surface (REST, MCP, workers), so the same failure gets the same answer
// everywhere. `timeout` and `unavailable` are temporary (504/503 with Retry-After, a job given
// back to its queue); `other` is a bug or bad data (500, logged, never retried blindly).
//
// By error name, as the drivers throw them: the MongoDB driver's network and topology errors,
// ioredis's, and the NATS client's. A MongoDB *server* error (MongoServerError) is classified by
// its code: a duplicate key or a validation failure is not an outage, a primary stepping down is.

export type FailureClass = 'timeout' | 'unavailable' | 'other';

const TIMEOUT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'MongoOperationTimeoutError']);

const UNAVAILABLE_NAMES: ReadonlySet<string> = new Set([
  // mongodb
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  // ioredis
  'MaxRetriesPerRequestError',
  // nats
  'ClosedConnectionError',
  'DrainingConnectionError',
  'ConnectionError',
  'NoRespondersError',
  'NoResponders', // the v3 client's NoRespondersError names itself so
  'JetStreamPublishError', // @dv/runtime's publisher, when no ack came
]);

// ioredis with its offline queue off, or a connection it has given up on, throws a plain Error.
const UNAVAILABLE_MESSAGE = /enableOfflineQueue|Connection is closed/;

/** MongoDB server codes that mean "this server cannot take the operation now" (error_codes.yml). */
const MONGO_UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);
const MONGO_TIMEOUT_CODES: ReadonlySet<number> = new Set([50 /* MaxTimeMSExpired */, 262 /* ExceededTimeLimit */]);

/**
 * The class of anything thrown; a non-error value is `other`. A wrapper (the NATS client's
 * RequestError around a timeout or "no responders") is classified by its cause.
 */
export function classifyFailure(err: unknown, depth = 0): FailureClass {
  if (!err || typeof err !== 'object') return 'other';
  const e = err as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
  const own = classifyOwn(e);
  if (own === 'other' && e.cause !== undefined && depth < 3) return classifyFailure(e.cause, depth + 1);
  return own;
}

function classifyOwn(e: { name?: unknown; message?: unknown; code?: unknown }): FailureClass {
  const name = typeof e.name === 'string' ? e.name : '';
  if (TIMEOUT_NAMES.has(name)) return 'timeout';
  if (UNAVAILABLE_NAMES.has(name)) return 'unavailable';
  if ((name === 'MongoServerError' || name === 'MongoWriteConcernError') && typeof e.code === 'number') {
    if (MONGO_TIMEOUT_CODES.has(e.code)) return 'timeout';
    if (MONGO_UNAVAILABLE_CODES.has(e.code)) return 'unavailable';
    return 'other';
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return 'unavailable';
  return 'other';
}

/** Seconds a caller should wait before retrying a temporary failure. */
export const FAILURE_RETRY_AFTER_S = 2;

export const FAILURE_DETAIL = {
  timeout: 'A backing service did not answer in time; retry with backoff.',
  unavailable: 'A backing service is temporarily unavailable; retry with backoff.',
} as const;

/**
 * The verification API's problem for a temporary failure (504 timeout, 503 service_unavailable,
 * both with Retry-After), or null for `other`, which each surface reports as its internal error.
 */
export function failureApiError(err: unknown): ApiError | null {
  const cls = classifyFailure(err);
  if (cls === 'other') return null;
  return new ApiError(cls === 'timeout' ? 'timeout' : 'service_unavailable', FAILURE_DETAIL[cls], {}, { 'Retry-After': String(FAILURE_RETRY_AFTER_S) });
}
