// `npm run stack`: only the servers (NATS with JetStream, Redis, MongoDB replica set) on free
// loopback ports, for running a service by hand or from an IDE. Prints the env to export.
import { join } from 'node:path';
import { stackSecretsEnv } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';

const stack = await startStack({ dataDir: join(REPO_ROOT, '.local', 'stack-only'), log: (m) => process.stdout.write(`${m}\n`), detached: true });
process.stdout.write(`\nServers are up. Export these to run a service against them:\n`);
// The signing key too, so a gateway and a scheduler run by hand sign and check links alike.
for (const [name, value] of Object.entries({ ...stack.env, ...stackSecretsEnv(stack.dataDir) })) process.stdout.write(`  export ${name}='${value}'\n`);
// Without these a service connects as the all-permitted anonymous user; with them, with its own permissions.
process.stdout.write(`  # and, to run a service as its bus user (gateway, scheduler, probe-node, portfolio-scanner):\n  export NATS_USER=<service> NATS_PASSWORD_FILE='${stack.env.NATS_USERS_DIR}/<service>'\n`);
process.stdout.write('\nCtrl-C stops them.\n');
const stop = () => void stack.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
