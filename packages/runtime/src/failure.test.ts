import { ClosedConnectionError, ConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { classifyFailure, failureApiError, type FailureClass } from './failure.ts';

// The errors as the drivers construct them, so a renamed class in a driver upgrade fails here.
const serverError = (code: number) => new MongoServerError({ message: `code ${code}`, code });
// The driver builds it with the topology it could not select from; an empty one is enough here.
const selectionError = () => new MongoServerSelectionError('no server', { error: undefined } as unknown as ConstructorParameters<typeof MongoServerSelectionError>[1]);
const { MaxRetriesPerRequestError } = (await import('ioredis/built/errors/index.js')) as unknown as { MaxRetriesPerRequestError: new (max: number) => Error };

describe('classifyFailure', () => {
  const cases: [string, unknown, FailureClass][] = [
    ['MongoDB unreachable', selectionError(), 'unavailable'],
    ['MongoDB connection reset', new MongoNetworkError('reset'), 'unavailable'],
    ['MongoDB client closed', new MongoTopologyClosedError(), 'unavailable'],
    ['MongoDB primary stepped down', serverError(189), 'unavailable'],
    ['MongoDB not writable primary', serverError(10107), 'unavailable'],
    ['MongoDB interrupted by a replica-set change', serverError(11602), 'unavailable'],
    ['MongoDB maxTimeMS expired', serverError(50), 'timeout'],
    ['MongoDB duplicate key', serverError(11000), 'other'],
    ['MongoDB document validation', serverError(121), 'other'],
    ['Redis retries given up', new MaxRetriesPerRequestError(3), 'unavailable'],
    ['Redis offline queue off', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'unavailable'],
    ['Redis connection closed', new Error('Connection is closed.'), 'unavailable'],
    ['NATS closed', new ClosedConnectionError(), 'unavailable'],
    ['NATS connection', new ConnectionError('refused'), 'unavailable'],
    ['NATS no responders', new NoRespondersError('verify.x'), 'unavailable'],
    ['NATS request timeout', new TimeoutError(), 'timeout'],
    ['NATS request with no responders', new RequestError('no responders', { cause: new NoRespondersError('verify.x') }), 'unavailable'],
    ['NATS request that timed out', new RequestError('timeout', { cause: new TimeoutError() }), 'timeout'],
    ['a wrapped bug', new Error('wrapped', { cause: new TypeError('x') }), 'other'],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')"), 'other'],
    ['a thrown string', 'boom', 'other'],
    ['null', null, 'other'],
  ];
  it.each(cases)('%s -> %s', (_what, err, expected) => {
    expect(classifyFailure(err)).toBe(expected);
  });

  it('renders temporary failures as 503/504 with Retry-After and leaves the rest to the surface', () => {
    expect(failureApiError(selectionError())).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '2' } });
    expect(failureApiError(new TimeoutError())).toMatchObject({ code: 'timeout', status: 504, headers: { 'Retry-After': '2' } });
    expect(failureApiError(serverError(11000))).toBeNull();
  });

  it('knows a real closed Redis client', async () => {
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const err = await redis.get('x').catch((e: unknown) => e);
    redis.disconnect();
    expect(classifyFailure(err)).toBe('unavailable');
  });
});
