// `npm run admin -- <command>`: the launcher's own commands (what the local mail catcher and
// webhook receiver got) and the lookup service's (free keys, daily allowances) here; accounts,
// keys and credits in packages/accounts/src/cli.ts, which this hands every other command to.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectMongo } from '@dv/runtime';
import { Redis } from 'ioredis';
import { consoleSignInLink } from '@dv/gateway/admin';
import { formatInbox } from '../inbox/format.ts';
import { readEntries } from '../inbox/store.ts';
import { DEMO_CONSOLE_LINK_TTL_MS } from '../demo-account.ts';
import { mintFreeLookupKey, resetLookupQuota } from '../lookup-admin.ts';
import { REPO_ROOT } from '@dv/stack';

const LOCAL_USAGE = `Local stack (npm start / npm run demo):
  inbox [--last N] [--json]   mails the services sent (with their links) and webhook deliveries (with the signature check)

Console:
  console-link EMAIL          a fresh one-time sign-in link to the console for that address (works once, for 24 h)

Lookup service:
  lookup-key:create  --email EMAIL        a free lookup key for that email, no email round trip (printed once; revokes its earlier keys)
  lookup-quota:reset --email EMAIL | --ip IP
                                          gives a free key's owner, or an anonymous client, today's lookups back`;

const localDir = process.env.DV_LOCAL_DIR ?? join(REPO_ROOT, '.local');
const [command, ...rest] = process.argv.slice(2);

/** MONGODB_URL / REDIS_URL when set, else the running launcher's (its stack.json). */
function stackUrl(name: 'MONGODB_URL' | 'REDIS_URL'): string {
  const set = process.env[name];
  if (set) return set;
  const file = join(localDir, 'stack.json');
  const fromStack = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { env?: Record<string, string> }).env?.[name] : undefined;
  if (!fromStack) fail(`${name} is not set and no \`npm start\` stack is running (${file} missing)`);
  return fromStack;
}

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n`);
  process.exit(2);
}

/** PUBLIC_BASE_URL when set, else the running launcher's gateway (its demo.json). */
function gatewayBaseUrl(): string {
  if (process.env.PUBLIC_BASE_URL) return process.env.PUBLIC_BASE_URL;
  const file = join(localDir, 'demo.json');
  const fromDemo = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { gateway?: string }).gateway : undefined;
  if (!fromDemo) fail(`PUBLIC_BASE_URL is not set and no \`npm start\` stack has written ${file}`);
  return fromDemo;
}

const print = (out: unknown) => process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);

if (command === 'lookup-key:create') {
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } }, strict: true });
  if (!values.email) fail('--email is required');
  const mongo = await connectMongo(stackUrl('MONGODB_URL'), process.env.MONGODB_DB ?? 'deliverability');
  try {
    print(await mintFreeLookupKey(mongo.db, values.email).catch((err: Error) => fail(err.message)));
  } finally {
    await mongo.close();
  }
} else if (command === 'lookup-quota:reset') {
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, ip: { type: 'string' } }, strict: true });
  if (!values.email === !values.ip) fail('give exactly one of --email (a free key\'s owner) or --ip (an anonymous client)');
  const redis = new Redis(stackUrl('REDIS_URL'), { maxRetriesPerRequest: 1 });
  try {
    print(await resetLookupQuota(redis, values.email ? { email: values.email } : { ip: values.ip! }));
  } finally {
    redis.disconnect();
  }
} else if (command === 'console-link') {
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
  if (positionals.length !== 1) fail('give one address: npm run admin -- console-link you@example.com');
  const redis = new Redis(stackUrl('REDIS_URL'), { maxRetriesPerRequest: 1 });
  try {
    const link = await consoleSignInLink({ redis, redisKeyPrefix: process.env.REDIS_KEY_PREFIX, baseUrl: gatewayBaseUrl(), email: positionals[0]!, ttlMs: DEMO_CONSOLE_LINK_TTL_MS }).catch((err: Error) => fail(err.message));
    process.stdout.write(`${link.url}\n(works once, until ${link.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)\n`);
  } finally {
    redis.disconnect();
  }
} else if (command === 'inbox') {
  const { values } = parseArgs({ args: rest, options: { last: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const last = values.last === undefined ? 20 : Number(values.last);
  if (!Number.isInteger(last) || last < 1) {
    process.stderr.write('admin: --last must be a whole number above 0\n');
    process.exit(2);
  }
  const inboxDir = join(localDir, 'inbox');
  const mails = readEntries(inboxDir, 'mail');
  const deliveries = readEntries(inboxDir, 'webhook');
  process.stdout.write(values.json ? `${JSON.stringify({ mails: mails.slice(-last), webhooks: deliveries.slice(-last) }, null, 2)}\n` : `${formatInbox(mails, deliveries, { last })}\n`);
} else {
  if (!command || command === 'help' || command === '--help') process.stdout.write(`${LOCAL_USAGE}\n\n`);
  await import('@dv/accounts/cli');
}
