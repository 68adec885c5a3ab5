// The simulated cluster's hosts as data, and the `ip` commands that build and remove them (pure: the
// executor in ./netns.ts runs them). Each host is a Linux network namespace with one veth link to a
// shared bridge; the operator (this process, the tests) sits on the bridge itself.
//
// Addresses come from 198.18.0.0/15 (RFC 2544's benchmarking range): neither a private range a
// real network might use nor public space, so nothing outside this machine can ever be addressed.
// Hosts take 198.18.0.x; the simulated internet's MX hosts take 198.19.x.y on the internet host.

export type Role = 'infra' | 'gateway' | 'scheduler' | 'probe' | 'internet';

export interface HostSpec {
  /** Short name, unique in the cluster: `gw1`, `probe2`… */
  name: string;
  role: Role;
  /** First address: the one every server of the host binds to. Probe hosts carry more (source IPs). */
  addresses: string[];
}

export interface Topology {
  /** Prefix of every namespace, link and bridge name, so `down` finds all of them. */
  prefix: string;
  bridge: string;
  /** The operator's address on the bridge. */
  operatorAddress: string;
  prefixLength: number;
  hosts: HostSpec[];
}

export const CLUSTER_PREFIX = 'dvc';
export const PREFIX_LENGTH = 15;
export const OPERATOR_ADDRESS = '198.18.0.1';
/** The internet host's servers: standard ports, since every host has its own port space. */
export const WORLD_PORTS = { dns: 53, smtp: 25, rdap: 8053, control: 8099 } as const;

export interface TopologyOptions {
  gateways?: number;
  schedulers?: number;
  probes?: number;
  /** Source addresses per probe host. */
  sourceIpsPerProbe?: number;
}

/** The cluster: infra, 2 gateways, 2 schedulers, 3 probe hosts with 2 source addresses, the internet. */
export function defaultTopology(opts: TopologyOptions = {}): Topology {
  const gateways = opts.gateways ?? 2;
  const schedulers = opts.schedulers ?? 2;
  const probes = opts.probes ?? 3;
  const perProbe = opts.sourceIpsPerProbe ?? 2;
  const hosts: HostSpec[] = [{ name: 'infra', role: 'infra', addresses: ['198.18.0.10'] }];
  for (let i = 1; i <= gateways; i++) hosts.push({ name: `gw${i}`, role: 'gateway', addresses: [`198.18.0.${20 + i}`] });
  for (let i = 1; i <= schedulers; i++) hosts.push({ name: `sched${i}`, role: 'scheduler', addresses: [`198.18.0.${30 + i}`] });
  for (let i = 1; i <= probes; i++) {
    // Source addresses 198.18.0.4i, 198.18.0.14i, …: readable in logs as "probe i, address k".
    hosts.push({ name: `probe${i}`, role: 'probe', addresses: Array.from({ length: perProbe }, (_, k) => `198.18.0.${40 + i + k * 100}`) });
  }
  hosts.push({ name: 'net', role: 'internet', addresses: ['198.18.0.53'] });
  if (gateways > 9 || schedulers > 9 || probes > 9 || perProbe > 2) throw new Error('the address plan holds at most 9 hosts per role and 2 source addresses per probe host');
  return { prefix: CLUSTER_PREFIX, bridge: `${CLUSTER_PREFIX}br0`, operatorAddress: OPERATOR_ADDRESS, prefixLength: PREFIX_LENGTH, hosts };
}

/** The address an MX host of the simulated internet gets: 198.19.(i / 250).(i % 250 + 1). */
export function internetAddress(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= 250 * 256) throw new Error(`internet address index out of range: ${index}`);
  return `198.19.${Math.floor(index / 250)}.${(index % 250) + 1}`;
}

export function namespaceOf(t: Topology, host: string): string {
  return `${t.prefix}-${host}`;
}

/** The bridge-side end of a host's link (interface names are limited to 15 characters). */
export function linkOf(t: Topology, host: string): string {
  const name = `${t.prefix}-${host}`;
  if (name.length > 15) throw new Error(`link name too long: ${name}`);
  return name;
}

export function hostByName(t: Topology, name: string): HostSpec {
  const host = t.hosts.find((h) => h.name === name);
  if (!host) throw new Error(`no host ${name} in the cluster (hosts: ${t.hosts.map((h) => h.name).join(', ')})`);
  return host;
}

export function hostsOf(t: Topology, role: Role): HostSpec[] {
  return t.hosts.filter((h) => h.role === role);
}

export type Command = readonly string[];

/**
 * Commands that build the cluster, in order. `extraAddresses` go to the host named by the key (the
 * internet host's MX addresses, as /32s: they answer ARP on the bridge like any local address).
 */
export function upCommands(t: Topology, extraAddresses: Record<string, string[]> = {}): Command[] {
  const cmds: Command[] = [
    ['ip', 'link', 'add', t.bridge, 'type', 'bridge'],
    ['ip', 'addr', 'add', `${t.operatorAddress}/${t.prefixLength}`, 'dev', t.bridge],
    ['ip', 'link', 'set', t.bridge, 'up'],
  ];
  for (const host of t.hosts) {
    const ns = namespaceOf(t, host.name);
    const link = linkOf(t, host.name);
    const inside = `${t.prefix}i-${host.name}`.slice(0, 15);
    cmds.push(
      ['ip', 'netns', 'add', ns],
      ['ip', 'link', 'add', link, 'type', 'veth', 'peer', 'name', inside],
      ['ip', 'link', 'set', inside, 'netns', ns],
      ['ip', '-n', ns, 'link', 'set', inside, 'name', 'eth0'],
      ['ip', 'link', 'set', link, 'master', t.bridge],
      ['ip', 'link', 'set', link, 'up'],
      ['ip', '-n', ns, 'link', 'set', 'lo', 'up'],
      ['ip', '-n', ns, 'link', 'set', 'eth0', 'up'],
    );
    for (const address of host.addresses) cmds.push(['ip', '-n', ns, 'addr', 'add', `${address}/${t.prefixLength}`, 'dev', 'eth0']);
    for (const address of extraAddresses[host.name] ?? []) cmds.push(['ip', '-n', ns, 'addr', 'add', `${address}/32`, 'dev', 'eth0']);
  }
  return cmds;
}

/**
 * Commands that remove whatever of the cluster exists, given the names found on the machine
 * (`ip netns list`, `ip -o link show`). Deleting a namespace ends its veth pair with it.
 */
export function downCommands(prefix: string, namespaces: string[], links: string[]): Command[] {
  const mine = (name: string) => name.startsWith(`${prefix}-`) || name.startsWith(`${prefix}br`) || name.startsWith(`${prefix}i-`);
  return [
    ...namespaces.filter(mine).map((ns) => ['ip', 'netns', 'del', ns] as Command),
    ...links.filter(mine).map((link) => ['ip', 'link', 'del', link] as Command),
  ];
}

/** Taking a host's link down or up: the host is cut off from everyone (its processes keep running). */
export function linkStateCommand(t: Topology, host: string, up: boolean): Command {
  return ['ip', 'link', 'set', linkOf(t, host), up ? 'up' : 'down'];
}
