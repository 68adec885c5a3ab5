// Runs the topology's `ip` commands (root only: CI and these machines run as root) and finds and
// removes whatever an earlier run left behind.
import { execFileSync } from 'node:child_process';
import { ensureCommand } from '@dv/stack';
import { downCommands, linkStateCommand, namespaceOf, upCommands, type Command, type Topology } from './topology.ts';

function run(cmd: Command): string {
  const [file, ...args] = cmd;
  try {
    return execFileSync(file!, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? '').trim();
    throw new Error(`${cmd.join(' ')} failed: ${stderr || (err as Error).message}`, { cause: err });
  }
}

/** Why the cluster cannot be built here, or null; installs Debian's iproute2 when `ip` is missing. */
export function clusterSupported(log: (msg: string) => void = () => undefined): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'building network namespaces needs root';
  try {
    ensureCommand('ip', 'iproute2', log);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

export function listNamespaces(): string[] {
  // "name (id: 3)" or "name" per line.
  return run(['ip', 'netns', 'list']).split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '').filter(Boolean);
}

export function listLinks(): string[] {
  // "7: dvc-gw1@if6: <…" per line.
  return run(['ip', '-o', 'link', 'show']).split('\n').map((l) => /^\d+:\s+([^:@\s]+)/.exec(l)?.[1] ?? '').filter(Boolean);
}

export function namespacePids(ns: string): number[] {
  try {
    return run(['ip', 'netns', 'pids', ns]).split('\n').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

/** SIGKILL every process of a namespace: what a host losing power looks like to everyone else. */
export function killNamespace(ns: string): number {
  const pids = namespacePids(ns);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids.length;
}

/** Removes every namespace, link and bridge with the prefix, ending their processes first. */
export function removeCluster(prefix: string): number {
  const namespaces = listNamespaces().filter((ns) => ns.startsWith(`${prefix}-`));
  for (const ns of namespaces) killNamespace(ns);
  const cmds = downCommands(prefix, namespaces, listLinks());
  for (const cmd of cmds) {
    try {
      run(cmd);
    } catch {
      // A veth end disappears with its namespace; a second removal of it fails harmlessly.
    }
  }
  return cmds.length;
}

/** Builds the topology after removing any leftover of an earlier run; on a failure removes what it made. */
export function buildCluster(t: Topology, extraAddresses: Record<string, string[]> = {}): void {
  removeCluster(t.prefix);
  try {
    for (const cmd of upCommands(t, extraAddresses)) run(cmd);
  } catch (err) {
    removeCluster(t.prefix);
    throw err;
  }
}

export function setLink(t: Topology, host: string, up: boolean): void {
  run(linkStateCommand(t, host, up));
}

/** argv prefix that runs a command inside a host's namespace. */
export function inHost(t: Topology, host: string): string[] {
  return ['ip', 'netns', 'exec', namespaceOf(t, host)];
}
