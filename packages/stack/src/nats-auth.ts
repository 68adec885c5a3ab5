// The bus's users in nats-server configuration (least privilege on the bus): one user per service with the
// permissions of @dv/contracts NATS_ROLES, for the local launcher (literal passwords from files in
// the stack's data folder) and for the k8s manifests (passwords from the server's environment,
// filled from one Secret per service; scripts/k8s-nats-auth.ts writes k8s/base/nats-auth.conf).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_USERS, natsPermissions, type NatsUser } from '@dv/contracts';

/**
 * The user an anonymous connection becomes on a local stack: no permission list, so anything.
 * Tests and tools connect without credentials and play any role (a fake probe node, a fake
 * scheduler); the services always connect as their own users (NATS_USERS_DIR). Production has no
 * such user: k8s/base/nats-auth.conf sets no `no_auth_user`, and a connection without a user is refused.
 */
export const LOCAL_ANONYMOUS_USER = 'dev';

/** The environment variable a k8s nats-server reads a user's password from (`$NATS_PASSWORD_PROBE_NODE`). */
export function passwordEnvName(user: NatsUser): string {
  return `NATS_PASSWORD_${user.toUpperCase().replaceAll('-', '_')}`;
}

const quote = (s: string) => JSON.stringify(s);
const list = (items: readonly string[]) => `[${items.map(quote).join(', ')}]`;

/**
 * The `authorization { users = [...] }` block. `password(user)` returns the config text of the
 * password: a quoted literal, or `$VARIABLE` (nats-server resolves it from its environment).
 */
export function renderNatsAuthorization(password: (user: NatsUser) => string, anonymous?: { user: string; password: string }): string {
  const lines = ['authorization {', '  users = ['];
  for (const user of NATS_USERS) {
    const p = natsPermissions(user);
    lines.push(`    {`, `      user: ${quote(user)}`, `      password: ${password(user)}`, '      permissions: {');
    lines.push(`        publish: { allow: ${list(p.publish)} }`, `        subscribe: { allow: ${list(p.subscribe)} }`);
    // One reply per request received, to whoever asked, within the role's bound (NATS_ROLES).
    if (p.responseExpiresS !== undefined) lines.push(`        allow_responses: { max: 1, expires: "${p.responseExpiresS}s" }`);
    lines.push('      }', '    }');
  }
  if (anonymous) lines.push(`    { user: ${quote(anonymous.user)}, password: ${quote(anonymous.password)} }`);
  lines.push('  ]', '}');
  if (anonymous) lines.push(`no_auth_user: ${quote(anonymous.user)}`);
  return `${lines.join('\n')}\n`;
}

/** Where a local stack keeps its users' password files (NATS_USERS_DIR in the stack's env). */
export function natsUsersDir(dataDir: string): string {
  return join(dataDir, 'nats-users');
}

/** NATS_USER and NATS_PASSWORD_FILE of a service on a local stack (NATS_USERS_DIR from the stack's env). */
export function natsUserEnv(usersDir: string | undefined, user: string): Record<string, string> {
  if (!usersDir || !(NATS_USERS as readonly string[]).includes(user)) return {};
  return { NATS_USER: user, NATS_PASSWORD_FILE: join(usersDir, user) };
}

/**
 * One password file per user in `usersDir` (mode 0600), made once so a restarted stack keeps them,
 * and the authorization block with those passwords (the server's config file is 0600 too).
 */
export function localNatsAuthorization(usersDir: string, anonymous: boolean): string {
  mkdirSync(usersDir, { recursive: true, mode: 0o700 });
  const passwords = new Map<string, string>();
  for (const user of [...NATS_USERS, LOCAL_ANONYMOUS_USER]) {
    const file = join(usersDir, user);
    try {
      writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    passwords.set(user, readFileSync(file, 'utf8').trim());
  }
  return renderNatsAuthorization((user) => quote(passwords.get(user)!), anonymous ? { user: LOCAL_ANONYMOUS_USER, password: passwords.get(LOCAL_ANONYMOUS_USER)! } : undefined);
}
