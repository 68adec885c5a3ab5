// What several benchmarks share: their command-line options, a seeded random source (the same
// world for the same --seed) and the server part of an nsd configuration for a loopback benchmark.
import { join } from 'node:path';

/** `--name value` pairs after the bench name (argv[3] on); a bare `--flag` reads as 'true'. */
export function benchArgs(argv: readonly string[] = process.argv): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 3; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '');
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) {
      args.set(name, 'true');
    } else {
      args.set(name, value);
      i++;
    }
  }
  return args;
}

// The seeded generator is shared with the services' tests.
export { rng } from '@dv/test-kit';

/** nsd's `server:` and `remote-control:` sections for one loopback server whose files live in `dir`. */
export function nsdServerConf(dir: string, port: number): string[] {
  return [
    'server:',
    `  ip-address: 127.0.0.1@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  server-count: 1',
    // Response rate limiting caps identical answers per client: a benchmark is one client.
    '  rrl-ratelimit: 0',
    '  username: ""',
    '  chroot: ""',
    `  zonesdir: "${dir}"`,
    `  pidfile: "${join(dir, 'nsd.pid')}"`,
    '  database: ""',
    `  zonelistfile: "${join(dir, 'zone.list')}"`,
    `  xfrdfile: "${join(dir, 'xfrd.state')}"`,
    `  xfrdir: "${dir}"`,
    `  logfile: "${join(dir, 'nsd.log')}"`,
    '  verbosity: 0',
    'remote-control:',
    '  control-enable: no',
  ];
}
