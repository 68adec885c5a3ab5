// Runs a world on its own for manual exploration:
//   node packages/world/src/cli.ts [world.json]
// prints the environment a service needs, then serves until Ctrl-C.
import { DEFAULT_WORLD_PATH, loadWorld, startWorld } from './index.ts';

const path = process.argv[2] ?? DEFAULT_WORLD_PATH;
const world = await startWorld(loadWorld(path));
for (const [key, value] of Object.entries(world.env)) process.stdout.write(`${key}=${value}\n`);
process.stdout.write(`# ${world.hosts.size} MX hosts on port ${world.smtpPort}; RDAP at ${world.rdapBaseUrl}; Ctrl-C to stop\n`);

const stop = (): void => {
  void world.stop().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
