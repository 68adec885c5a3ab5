/**
 * At most `max` tasks at once per key: the politeness cap (concurrent sessions per MX host) the
 * scheduler enforces in production, applied equally to every mode a benchmark compares.
 */
export function perKeyLimit(max: number): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const active = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  return async (key, task) => {
    if ((active.get(key) ?? 0) >= max) {
      // The finishing task hands its slot over directly, so no newcomer can slip in between.
      await new Promise<void>((resolve) => {
        const queue = waiting.get(key) ?? [];
        queue.push(resolve);
        waiting.set(key, queue);
      });
    } else {
      active.set(key, (active.get(key) ?? 0) + 1);
    }
    try {
      return await task();
    } finally {
      const next = waiting.get(key)?.shift();
      if (next) next();
      else active.set(key, active.get(key)! - 1);
    }
  };
}
