import { randomBytes } from 'node:crypto';

/**
 * PROBE_NODE_ID when set, else `<hostname>-<random>`: readable in logs and dashboards, unique
 * across restarts (a restarted pod must not receive the replies meant for its predecessor), and a
 * valid single NATS subject token (letters, digits, `_`, `-`; at most 64 characters).
 */
export function nodeIdFrom(configured: string | undefined, hostname: string, random: () => string = () => randomBytes(3).toString('hex')): string {
  if (configured) return configured;
  const base = hostname.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50) || 'probe';
  return `${base}-${random()}`;
}
