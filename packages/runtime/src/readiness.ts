// When a dependency's blip fails readiness. Every replica of a service shares the same
// NATS, Redis and MongoDB: if each pod's /readyz failed at the first failed ping, a two-second
// Redis failover would take every pod out of its Service together, turning a blip that requests
// ride out (with their own timeouts and retries) into a full outage at the load balancer. So a
// dependency counts against readiness only once it has been down for READINESS_GRACE_MS without a
// break; `dependency_up` still shows every failed check at once, for alerts. Liveness (/healthz)
// says only whether the process itself works, never a dependency.

export interface ReadinessJudgement {
  /** Down for at least the grace: readiness fails. */
  failing: string[];
  /** Down for less than the grace: readiness holds, /readyz names them. */
  tolerated: string[];
}

/** Remembers since when each dependency has been down; pure apart from the clock it is given. */
export class DependencyGrace {
  private readonly graceMs: number;
  private readonly now: () => number;
  private readonly downSince = new Map<string, number>();

  constructor(graceMs: number, now: () => number = Date.now) {
    this.graceMs = graceMs;
    this.now = now;
  }

  judge(states: ReadonlyArray<readonly [name: string, up: boolean]>): ReadinessJudgement {
    const t = this.now();
    const failing: string[] = [];
    const tolerated: string[] = [];
    for (const [name, up] of states) {
      if (up) {
        this.downSince.delete(name);
        continue;
      }
      const since = this.downSince.get(name) ?? t;
      this.downSince.set(name, since);
      (t - since >= this.graceMs ? failing : tolerated).push(name);
    }
    return { failing, tolerated };
  }
}
