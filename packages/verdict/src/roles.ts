import { ROLE_LOCAL_PARTS, ROLE_QUALIFIERS } from './data/role-local-parts.ts';

const ROLES = new Set(ROLE_LOCAL_PARTS);
const QUALIFIERS = new Set(ROLE_QUALIFIERS);

/**
 * The role word a local part is built on, or null for a personal mailbox.
 * "no-reply", "no_reply", "noreply2" -> "noreply" (separators and digits removed);
 * "sales.team", "info-uk", "support+tickets" -> the first word, when every other word is a
 * qualifier (team, uk, emea...) or a number. "john.sales" and "marketing.anna" stay personal:
 * a name next to a role word means a person's mailbox.
 */
export function roleOf(localPart: string): string | null {
  const base = (localPart.toLowerCase().replace(/^"|"$/g, '').split('+')[0] ?? '').trim();
  const compact = base.replace(/[^a-z]/g, '');
  if (ROLES.has(compact)) return compact;
  const words = base.split(/[^a-z]+/).filter((w) => w.length > 0);
  const [first, ...rest] = words;
  if (first !== undefined && ROLES.has(first) && rest.every((w) => QUALIFIERS.has(w) || ROLES.has(w))) return first;
  return null;
}
