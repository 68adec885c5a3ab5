// `npm start`: the local stack (NATS, Redis, MongoDB) + one of each service + a demo account.
// `npm run demo`: the same with the simulated internet, every service pointed at it.
// Ctrl-C stops everything, services first, and leaves no process behind. A service that exits on
// its own is reported and restarted (../watch.ts); one launcher per checkout (./launcher-lock.ts).
// Every push channel works with no setting: a mail catcher is every service's SMTP relay and an
// HTTPS webhook receiver (certificate from the launcher's own CA, which the services trust) checks
// signatures; `npm run admin -- inbox` shows what both received.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { getAccount } from '@dv/accounts';
import { applySchema } from '@dv/stack';
import { DEMO_ACCOUNT, DEMO_PORTFOLIO_DOMAINS, demoConsole, ensureDemoAccount, ensureDemoPortfolio, ensureDemoPortfolioAccounts, ensureDemoPortfolioKey } from '../demo-account.ts';
import { DEFAULT_PORTS, SERVICE_NAMES, stackSecretsEnv, startServiceProcess, type RunningProcess, type ServiceName } from '@dv/stack';
import { caBundleFile, ensureLocalCa, loopbackServerCert } from '../local-ca.ts';
import { localServiceEnv, publicBaseUrls } from '../local-env.ts';
import { startMailCatcher, type MailCatcher } from '../mail-catcher.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver.ts';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';
import { ServiceWatch } from '../watch.ts';
import { acquireLauncherLock, refusalMessage } from './launcher-lock.ts';
import { demoWorldSummary, startDemoWorld, type DemoWorld } from './demo-world.ts';
import { firstCurls } from './first-curls.ts';

const demo = process.argv.includes('--demo');
// DV_LOCAL_DIR moves everything the launcher keeps (tests run launchers in their own folders).
const localDir = process.env.DV_LOCAL_DIR ?? join(REPO_ROOT, '.local');
const say = (msg: string) => process.stdout.write(`${msg}\n`);

// Before anything else: a second launcher must not touch the first one's servers, files or ports.
mkdirSync(localDir, { recursive: true });
const lock = acquireLauncherLock(localDir, demo ? 'npm run demo' : 'npm start');
if (!lock.ok) {
  process.stderr.write(`${refusalMessage(lock.holder, lock.file)}\n`);
  process.exit(1);
}
const releaseLock = lock.release;

function portFor(name: ServiceName): number {
  const envName = `${name.toUpperCase().replace('-', '_')}_PORT`;
  const raw = process.env[envName];
  if (raw === undefined) return DEFAULT_PORTS[name];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${envName} must be a port number, got "${raw}"`);
  return port;
}

let stack: Stack | undefined;
let world: DemoWorld | undefined;
let mailCatcher: MailCatcher | undefined;
let receiver: WebhookReceiver | undefined;
let mongo: MongoClient | undefined;
const services: ServiceWatch<RunningProcess>[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  say('\nstopping services…');
  await Promise.allSettled(services.map((s) => s.stop()));
  await world?.stop();
  await Promise.allSettled([mailCatcher?.stop(), receiver?.stop()]);
  await mongo?.close().catch(() => undefined);
  say('stopping NATS, Redis and MongoDB…');
  await stack?.stop();
  rmSync(join(localDir, 'stack.json'), { force: true });
  releaseLock();
  say('stopped; nothing left running.');
  process.exit(code);
}

/** A short-lived Redis connection for one piece of work. */
async function withRedis<T>(redisUrl: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  mkdirSync(localDir, { recursive: true });
  say(`starting NATS (JetStream), Redis and MongoDB on free loopback ports (data in .local/stack)…`);
  const started = await startStack({ dataDir: join(localDir, 'stack'), log: say, detached: true });
  stack = started;
  // The signing key lives with the stack's data, so links outlive a restart of `npm start`.
  const env: Record<string, string> = { ...stack.env, ...stackSecretsEnv(stack.dataDir), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' };
  if (demo) {
    world = await startDemoWorld();
    Object.assign(env, world.env);
    say(`simulated internet up: DNS ${world.env.DNS_SERVERS}, SMTP port ${world.env.SMTP_PORT}`);
  }
  writeFileSync(join(localDir, 'stack.json'), JSON.stringify({ env: stack.env, pid: process.pid }, null, 2));
  const client = new MongoClient(stack.env.MONGODB_URL as string);
  mongo = client;
  const db = client.db(process.env.MONGODB_DB ?? 'deliverability');
  await applySchema(db);
  // Where the push channels land: mails and webhook deliveries are kept in .local/inbox.
  const inboxDir = join(localDir, 'inbox');
  mailCatcher = await startMailCatcher({ inboxDir });
  const ca = await ensureLocalCa(join(localDir, 'ca'));
  receiver = await startWebhookReceiver({
    inboxDir,
    tls: await loopbackServerCert(ca),
    secretFor: async (accountId) => (await getAccount(db, accountId).catch(() => null))?.webhook_secret ?? null,
  });
  say(`mail catcher ${mailCatcher.url} and webhook receiver ${receiver.url} up (what they get: npm run admin -- inbox)`);
  const ports = Object.fromEntries(SERVICE_NAMES.map((n) => [n, portFor(n)])) as Record<ServiceName, number>;
  const channels = { smtpRelayUrl: mailCatcher.url, caBundleFile: caBundleFile(join(localDir, 'ca'), ca, process.env.NODE_EXTRA_CA_CERTS) };
  for (const name of SERVICE_NAMES) {
    say(`starting ${name}…`);
    // Links name the address each service really listens on; mail and webhooks reach the catchers.
    const own = localServiceEnv(name, ports, channels);
    const logDir = join(localDir, 'logs');
    const start = () => startServiceProcess(name, { env: { ...env, ...own }, port: portFor(name), logDir, detachedPidDir: started.dataDir });
    const onGiveUp = (reason: string) => {
      process.stderr.write(`\n${reason}; stopping everything.\n`);
      void stopAll(1);
    };
    services.push(await ServiceWatch.start({ name, start, say, onGiveUp, logFile: join(logDir, `${name}.log`) }));
  }
  const url = (name: ServiceName) => services.find((s) => s.name === name)?.url ?? '';
  const keys = await ensureDemoAccount(db);
  const portfolioKey = await ensureDemoPortfolioKey(db, keys.accountId);
  const portfolioOthers = await ensureDemoPortfolioAccounts(db, { world: Boolean(world) });
  // The scanner (role both) scans the simulated world's domains; on the real internet nothing is added.
  const portfolioAdded = world ? await ensureDemoPortfolio(db, keys.accountId) : null;
  const credits = (await getAccount(db, keys.accountId)).credits;
  const consoleLinks = await withRedis(stack.env.REDIS_URL as string, (redis) => demoConsole(redis, publicBaseUrls(ports).gateway ?? url('gateway')));

  const webhookUrl = receiver.urlFor(keys.accountId);
  const summary = {
    gateway: url('gateway'),
    lookup: url('lookup'),
    portfolio: url('portfolio-scanner'),
    portfolio_mcp: `${url('portfolio-scanner')}/mcp`,
    ...consoleLinks,
    keys: { live: keys.live, sandbox: keys.sandbox, portfolio: portfolioKey, portfolio_other: portfolioOthers.other, portfolio_no_api: portfolioOthers.noApi },
    inbox: { smtp_relay_url: mailCatcher.url, webhook_url: webhookUrl },
  };
  writeFileSync(join(localDir, 'demo.json'), `${JSON.stringify(summary, null, 2)}\n`);
  say('');
  say('Everything is up.');
  for (const s of services) say(`  ${s.name.padEnd(18)} ${s.url}   (/healthz /readyz /metrics)`);
  say('');
  say(`Demo account ${keys.accountId} (${DEMO_ACCOUNT.email}, Business plan, ${credits.toLocaleString('en-US')} ${credits === 1 ? 'credit' : 'credits'})`);
  say(`  live key:    ${keys.live}`);
  say(`  sandbox key: ${keys.sandbox}`);
  say(`  portfolio key (Enterprise Max): ${portfolioKey}`);
  say(`    curl -H "Authorization: Bearer ${portfolioKey}" ${summary.portfolio}/api/v1/domains/`);
  say(`  MCP connector: ${summary.portfolio_mcp} (the portfolio key as bearer, or OAuth: paste it on the consent page)`);
  const mcpCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_dashboard_summary', arguments: {} } });
  say(`    curl -H "Authorization: Bearer ${portfolioKey}" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -d '${mcpCall}' ${summary.portfolio_mcp}`);
  say(`  portfolio keys of a second Enterprise Max account and of a plan without API access (403): in .local/demo.json`);
  say('');
  say(`Console: ${consoleLinks.console}`);
  say(`  sign in as ${DEMO_ACCOUNT.email} (works once, for 24 h; another: npm run admin -- console-link ${DEMO_ACCOUNT.email}):`);
  say(`  ${consoleLinks.console_signin}`);
  say('');
  say('Try:');
  for (const line of firstCurls(summary, keys, demo, { webhookUrl })) say(`  ${line}`);
  if (world) for (const line of demoWorldSummary()) say(line);
  if (portfolioAdded !== null) {
    say('');
    say(`Portfolio: the demo account monitors ${DEMO_PORTFOLIO_DOMAINS.join(', ')} (${portfolioAdded} added now);`);
    say('  their first scans land in MongoDB (portfolio_corpus) within seconds, rescans every PORTFOLIO_RESCAN_INTERVAL_S.');
  }
  say('');
  say('Keys and URLs are also in .local/demo.json; logs in .local/logs; mails and webhooks in .local/inbox.');
  say('Keys are new at every start; accounts, credits, jobs and the inbox are kept (start over: stop, then rm -rf .local/stack .local/inbox).');
  say('Ctrl-C stops everything.');
} catch (err) {
  process.stderr.write(`\nstart failed: ${(err as Error).message}\n`);
  await stopAll(1);
}
