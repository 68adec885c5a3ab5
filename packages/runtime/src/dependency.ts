/** A server a process depends on: `/readyz` answers 200 only while every one reports ready. */
export interface Dependency {
  readonly name: 'nats' | 'redis' | 'mongodb' | (string & {});
  /** Cheap and bounded: must answer within about a second even while the server is down. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * Shared by every replica (the DNS resolver): while down it is reported (`dependency_up` 0,
   * `/readyz` names it under `degraded`) but /readyz stays 200, since unrouting or restarting this
   * replica would not mend it and taking every replica out would stop what still works.
   */
  readonly advisory?: boolean;
}

/** Resolves to `fallback` if `promise` has not settled within `ms`; rejections count as `fallback` too. */
export async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise.catch(() => fallback), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
