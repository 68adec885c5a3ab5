// Retry timing after temporary replies (design.md "Reference numbers").

/** Greylist retries, minutes after the FIRST try; after the last one the result is unknown/temp_failure. */
export const GREYLIST_LADDER_MINUTES: readonly number[] = [5, 12, 20, 45, 75];

/** Pause of a (provider, source IP) after a throttling reply: 10 min, doubling, at most 1 h. */
export const THROTTLE_PAUSE = { initialMinutes: 10, factor: 2, maxMinutes: 60 } as const;

/** How long our IP counts as blocked by a provider after a policy block (ZoneMTA blacklist ttl). */
export const POLICY_BLOCK_MINUTES = 60;
