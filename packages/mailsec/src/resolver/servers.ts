// Upstream server lists as configured everywhere in the project: DNS_SERVERS is a comma-separated
// list of `host`, `host:port`, `[v6]` or `[v6]:port`; a bare IPv6 address is also accepted.
import { isIP } from 'node:net';
import { getServers } from 'node:dns';

export interface UpstreamServer {
  host: string;
  port: number;
  family: 4 | 6;
}

const DNS_PORT = 53;

export function parseServer(spec: string): UpstreamServer {
  const s = spec.trim();
  let host = s;
  let port = DNS_PORT;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracketed) {
    host = bracketed[1] ?? '';
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(s) === 0) {
    const i = s.lastIndexOf(':');
    if (i > 0) {
      host = s.slice(0, i);
      port = Number(s.slice(i + 1));
    }
  }
  const family = isIP(host);
  if (family === 0) throw new Error(`DNS server "${spec}": not an IP address (names cannot be resolved before DNS is up)`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`DNS server "${spec}": bad port`);
  return { host, port, family: family === 4 ? 4 : 6 };
}

export function parseServers(list: string | readonly string[]): UpstreamServer[] {
  const items = typeof list === 'string' ? list.split(',') : list;
  const servers = items.map((s) => s.trim()).filter((s) => s !== '').map(parseServer);
  if (servers.length === 0) throw new Error('no DNS servers configured');
  return servers;
}

/** DNS_SERVERS from the environment, else the system's resolvers (the documented default). */
export function serversFromEnv(env: NodeJS.ProcessEnv = process.env): UpstreamServer[] {
  const configured = env.DNS_SERVERS?.trim();
  if (configured) return parseServers(configured);
  return parseServers(getServers());
}
