// Admin CLI: `npm run admin -- <command> [options]`. Talks to MongoDB at MONGODB_URL, or, when
// that is unset, to the stack `npm start` is running (its addresses are in .local/stack.json).
// Commands that take a credential's power away (a key revoked, an account deactivated, a plan
// changed) also need Redis (REDIS_URL, or the stack's): they write the revocation marks that make
// every API replica refuse the key from its next call (auth-marks.ts), and refuse to run without.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_COLLECTIONS, PLAN_NAMES, PORTFOLIO_PLAN_NAMES, type PlanName, type PortfolioPlanName } from '@dv/contracts';
import { connectMongo, connectRedis, createLogger, ensureCollections } from '@dv/runtime';
import { AuthMarks } from './auth-marks.ts';
import { publicKey } from './model.ts';
import { createPortfolioKey, listPortfolioKeys, publicPortfolioKey, revokePortfolioKey, setPortfolioPlan } from './portfolio-keys.ts';
import { AccountError, addCredits, createAccount, createApiKey, getAccount, listAccounts, listApiKeys, revokeApiKey, setAccountPlan, setAccountStatus } from './store.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  account:create --name NAME --email EMAIL --plan PLAN [--credits N] [--inactive]
  account:show   --account ACC_ID
  account:list   [--limit N]                  newest first: id, name, email, plan, status, credits
  account:find   --query TEXT                 an id, or part of a name or email (case-insensitive)
  account:status --account ACC_ID --status active|inactive   (inactive: its keys refused at once)
  account:plan   --account ACC_ID --plan PLAN (a plan without API access: its keys refused at once)
  key:create     --account ACC_ID --name NAME [--mode live|sandbox]   (prints the full key once)
  key:list       --account ACC_ID
  key:revoke     --key KEY_ID_OR_PREFIX
  credits:add    --account ACC_ID --amount N [--note TEXT]

Portfolio API (docs/portfolio-scanner.md "API"):
  portfolio:plan         --account ACC_ID --plan PORTFOLIO_PLAN|none
  portfolio-key:create   --account ACC_ID --name NAME   (prints the full svc_live_ key once)
  portfolio-key:list     --account ACC_ID
  portfolio-key:revoke   --account ACC_ID --key KEY_ID

Plans: ${PLAN_NAMES.join(', ')}
Portfolio plans: ${PORTFOLIO_PLAN_NAMES.join(', ')} (business has no API access)
MongoDB: MONGODB_URL (and MONGODB_DB, default "deliverability"), else the running \`npm start\` stack.
Redis (key:revoke, portfolio-key:revoke, portfolio:plan, account:status, account:plan): REDIS_URL,
else the running stack's.`;

/** The commands that write revocation marks (auth-marks.ts). */
const MARKING = new Set(['key:revoke', 'portfolio-key:revoke', 'portfolio:plan', 'account:status', 'account:plan']);

/** MONGODB_URL / REDIS_URL when set, else the running `npm start` stack's. */
function stackUrl(name: 'MONGODB_URL' | 'REDIS_URL'): string {
  if (process.env[name]) return process.env[name];
  // DV_LOCAL_DIR: the launcher's folder when it was moved (as the launcher itself reads it).
  const stackFile = join(process.env.DV_LOCAL_DIR ?? join(resolve(import.meta.dirname, '../../..'), '.local'), 'stack.json');
  if (existsSync(stackFile)) {
    const stack = JSON.parse(readFileSync(stackFile, 'utf8')) as { env?: Record<string, string | undefined> };
    const url = stack.env?.[name];
    if (url) return url;
  }
  throw new AccountError('invalid', `${name} is not set and no \`npm start\` stack is running (.local/stack.json missing)${name === 'REDIS_URL' ? '; this command writes revocation marks in Redis' : ''}`);
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new AccountError('invalid', `--${name} is required\n\n${USAGE}`);
  return v;
}

function wholeNumber(value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) throw new AccountError('invalid', `--${name} must be a whole number`);
  return Number(value);
}

// eslint-disable-next-line max-lines-per-function -- the admin CLI's command table: one case per command
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' }, credits: { type: 'string' }, inactive: { type: 'boolean' },
      account: { type: 'string' }, mode: { type: 'string' }, key: { type: 'string' }, amount: { type: 'string' }, note: { type: 'string' },
      query: { type: 'string' }, limit: { type: 'string' }, status: { type: 'string' },
    },
    strict: true,
  });
  // Redis first: a marking command must not change MongoDB and then fail to reach the replicas.
  const redis = MARKING.has(command) ? await connectRedis(stackUrl('REDIS_URL'), createLogger('admin', 'silent')) : undefined;
  const marks = redis ? new AuthMarks(redis.redis) : undefined;
  const mongo = await connectMongo(stackUrl('MONGODB_URL'), process.env.MONGODB_DB ?? 'deliverability');
  try {
    await ensureCollections(mongo.db, ALL_COLLECTIONS);
    const db = mongo.db;
    let out: unknown;
    switch (command) {
      case 'account:create': {
        const plan = required(values, 'plan');
        if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new AccountError('invalid', `--plan must be one of ${PLAN_NAMES.join(', ')}`);
        out = await createAccount(db, {
          name: required(values, 'name'),
          email: required(values, 'email'),
          plan: plan as PlanName,
          credits: values.credits ? wholeNumber(values.credits, 'credits') : 0,
          status: values.inactive ? 'inactive' : 'active',
        });
        break;
      }
      case 'account:show':
        out = await getAccount(db, required(values, 'account'));
        break;
      case 'account:list':
        out = await listAccounts(db, { limit: values.limit ? wholeNumber(values.limit, 'limit') : 50 });
        break;
      case 'account:find':
        out = await listAccounts(db, { query: required(values, 'query'), limit: values.limit ? wholeNumber(values.limit, 'limit') : 50 });
        break;
      case 'key:create': {
        const mode = values.mode ?? 'live';
        if (mode !== 'live' && mode !== 'sandbox') throw new AccountError('invalid', '--mode must be live or sandbox');
        const created = await createApiKey(db, required(values, 'account'), required(values, 'name'), mode);
        out = { key: created.key, note: 'This is the only time the full key is shown; only its hash is stored.', ...publicKey(created.record) };
        break;
      }
      case 'key:list':
        out = (await listApiKeys(db, required(values, 'account'))).map(publicKey);
        break;
      case 'key:revoke':
        out = publicKey(await revokeApiKey(db, required(values, 'key'), undefined, marks));
        break;
      case 'account:status': {
        const status = required(values, 'status');
        if (status !== 'active' && status !== 'inactive') throw new AccountError('invalid', '--status must be active or inactive');
        const account = await setAccountStatus(db, required(values, 'account'), status, marks);
        out = { account_id: account._id, status: account.status };
        break;
      }
      case 'account:plan': {
        const plan = required(values, 'plan');
        if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new AccountError('invalid', `--plan must be one of ${PLAN_NAMES.join(', ')}`);
        const account = await setAccountPlan(db, required(values, 'account'), plan as PlanName, marks);
        out = { account_id: account._id, plan: account.plan };
        break;
      }
      case 'credits:add': {
        const amount = wholeNumber(required(values, 'amount'), 'amount');
        const account = await addCredits(db, required(values, 'account'), amount, `grant:cli:${Date.now()}:${Math.random().toString(36).slice(2)}`, values.note ?? null);
        out = { account_id: account._id, credits: account.credits };
        break;
      }
      case 'portfolio:plan': {
        const plan = required(values, 'plan');
        if (plan !== 'none' && !(PORTFOLIO_PLAN_NAMES as readonly string[]).includes(plan)) throw new AccountError('invalid', `--plan must be none or one of ${PORTFOLIO_PLAN_NAMES.join(', ')}`);
        const account = await setPortfolioPlan(db, required(values, 'account'), plan === 'none' ? null : (plan as PortfolioPlanName), marks);
        out = { account_id: account._id, portfolio_plan: account.portfolio_plan ?? null };
        break;
      }
      case 'portfolio-key:create': {
        const created = await createPortfolioKey(db, required(values, 'account'), required(values, 'name'));
        out = { key: created.key, note: 'This is the only time the full key is shown; only its hash is stored.', ...publicPortfolioKey(created.record) };
        break;
      }
      case 'portfolio-key:list':
        out = (await listPortfolioKeys(db, required(values, 'account'))).map(publicPortfolioKey);
        break;
      case 'portfolio-key:revoke': {
        const revoked = await revokePortfolioKey(db, required(values, 'account'), wholeNumber(required(values, 'key'), 'key'), marks);
        if (!revoked) throw new AccountError('not_found', `no portfolio key ${values.key} in account ${values.account}`);
        out = publicPortfolioKey(revoked);
        break;
      }
      default:
        throw new AccountError('invalid', `unknown command "${command}"\n\n${USAGE}`);
    }
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } finally {
    await mongo.close();
    await redis?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof AccountError || (err as Error)?.name === 'TypeError' ? (err as Error).message : String((err as Error)?.message ?? err);
    process.stderr.write(`admin: ${message}\n`);
    process.exit(err instanceof AccountError ? 2 : 1);
  },
);
