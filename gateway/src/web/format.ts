// How the console writes numbers and times: grouped digits, UTC dates people read at a glance.

const GROUPED = new Intl.NumberFormat('en-US');

export const count = (n: number): string => GROUPED.format(n);

export const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

/** `2026-12-07 14:05 UTC`. */
export const utcTime = (d: Date | string | null | undefined): string => (d ? `${new Date(d).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '—');

export const utcDate = (d: Date | string): string => new Date(d).toISOString().slice(0, 10);

/** "3 minutes ago", "in 2 hours": coarse, for lists. */
export function relative(d: Date | string, nowMs = Date.now()): string {
  const s = Math.round((new Date(d).getTime() - nowMs) / 1000);
  const a = Math.abs(s);
  const [n, unit] = a < 60 ? [a, 'second'] : a < 3_600 ? [Math.round(a / 60), 'minute'] : a < 86_400 ? [Math.round(a / 3_600), 'hour'] : [Math.round(a / 86_400), 'day'];
  const text = plural(n, unit as string);
  return s < 0 ? `${text} ago` : s === 0 ? 'now' : `in ${text}`;
}

/** A span of seconds as people say it: "45 seconds", "20 minutes", "3 hours", "2 days". */
export function duration(seconds: number): string {
  const a = Math.max(0, Math.round(seconds));
  if (a < 90) return plural(a, 'second');
  if (a < 90 * 60) return plural(Math.round(a / 60), 'minute');
  if (a < 36 * 3_600) return plural(Math.round(a / 3_600), 'hour');
  return plural(Math.round(a / 86_400), 'day');
}
