// Retry timing after temporary replies (ZoneMTA's defer times, postgrey's 300 s wait).

/** Greylist retries, minutes after the FIRST try; after the last one the result is unknown/temp_failure. */
export const GREYLIST_LADDER_MINUTES: readonly number[] = [5, 12, 20, 45, 75];

/**
 * Retries after a temporary failure that is not greylisting (451 4.3.0 "Temporary lookup failure",
 * a broken backend): minutes after the first try. Short, because such a server rarely recovers
 * within the greylist ladder's two hours and each retry costs it a session; the 5- and 20-minute
 * steps still let through a greylister whose wording we do not recognise (postgrey waits 5 min).
 */
export const TEMP_FAILURE_LADDER_MINUTES: readonly number[] = [5, 20];

/** Pause of a (provider, source IP) after a throttling reply: 10 min, doubling, at most 1 h. */
export const THROTTLE_PAUSE = { initialMinutes: 10, factor: 2, maxMinutes: 60 } as const;

/** How long our IP counts as blocked by a provider after a policy block (ZoneMTA blacklist ttl). */
export const POLICY_BLOCK_MINUTES = 60;
