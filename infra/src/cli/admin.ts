// `npm run admin -- <command>`: the launcher's own commands (what the local mail catcher and
// webhook receiver got) here; accounts, keys and credits in packages/accounts/src/cli.ts, which
// this hands every other command to.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatInbox } from '../inbox/format.ts';
import { readEntries } from '../inbox/store.ts';
import { REPO_ROOT } from '../stack/stack.ts';

const LOCAL_USAGE = `Local stack (npm start / npm run demo):
  inbox [--last N] [--json]   mails the services sent (with their links) and webhook deliveries (with the signature check)`;

const localDir = process.env.DV_LOCAL_DIR ?? join(REPO_ROOT, '.local');
const [command, ...rest] = process.argv.slice(2);

if (command === 'inbox') {
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
  await import('../../../packages/accounts/src/cli.ts');
}
