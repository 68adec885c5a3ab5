// RDAP server (HTTP on loopback) with an IANA-style bootstrap that points at itself.
import http from 'node:http';
import net from 'node:net';
import { normalizeName, parseCidr, rangeContains, tldOf } from '../names.ts';
import type { IpRange } from '../names.ts';
import { closeTcp, listenTcp, withPortRetry } from '../ports.ts';
import { rdapSchema } from '../schema.ts';
import type { RdapIp, RdapSectionInput } from '../schema.ts';
import { Timers } from '../timers.ts';
import { bootstrapBody, domainBody, errorBody, ipBody } from './render.ts';

export interface RdapServerOptions {
  host?: string;
  port?: number;
  latencyMs?: number;
  // TLDs to list in the bootstrap besides those of the registered domains (e.g. every TLD in DNS).
  tlds?: string[];
}

export interface RdapServerHandle {
  port: number;
  // e.g. http://127.0.0.1:PORT/rdap/ — ends with "/" as bootstrap base URLs do.
  baseUrl: string;
  // IANA-style dns.json listing the world's TLDs with baseUrl.
  bootstrapUrl: string;
  // Paths requested, in order.
  requests: string[];
  stop(): Promise<void>;
}

const RDAP_TYPE = 'application/rdap+json';

export async function startRdapServer(section: RdapSectionInput, options: RdapServerOptions = {}): Promise<RdapServerHandle> {
  const rdap = rdapSchema.parse(section);
  const host = options.host ?? '127.0.0.1';
  const timers = new Timers();
  const requests: string[] = [];
  const networks = rdap.ips.map((ip) => ({ ip, range: parseCidr(ip.cidr) as IpRange }));
  const tlds = [...new Set([...Object.keys(rdap.domains).map(tldOf), ...(options.tlds ?? []).map(normalizeName)])].filter((t) => t !== '').sort();
  let origin = '';

  // A request handler's throw would be uncaught and end the process: a name that does not
  // percent-decode is the client's error.
  const decoded = (segment: string): string | null => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return null;
    }
  };
  const route = (path: string): { status: number; body: unknown; type: string } => {
    const baseUrl = `${origin}/rdap/`;
    const domainMatch = /^\/rdap\/domain\/([^/]+)$/.exec(path);
    if (domainMatch) {
      const raw = decoded(domainMatch[1] ?? '');
      if (raw === null) return rdapError(400, 'Bad Request', 'the domain name is not valid percent-encoding');
      const name = normalizeName(raw);
      const domain = rdap.domains[name];
      if (domain === undefined) return rdapError(404, 'Not Found', `${name} is not registered in this world`);
      return { status: 200, body: domainBody(name, domain, `${baseUrl}domain/${name}`), type: RDAP_TYPE };
    }
    const ipMatch = /^\/rdap\/ip\/([^/]+)$/.exec(path);
    if (ipMatch) {
      const ip = decoded(ipMatch[1] ?? '') ?? '';
      if (net.isIP(ip) === 0) return rdapError(400, 'Bad Request', `${ip} is not an IP address`);
      const found = longestMatch(networks, ip);
      if (found === undefined) return rdapError(404, 'Not Found', `no network in this world contains ${ip}`);
      return { status: 200, body: ipBody(found.ip, found.range, `${baseUrl}ip/${ip}`), type: RDAP_TYPE };
    }
    if (path === '/bootstrap/dns.json') return json(bootstrapBody(tlds, baseUrl, 'RDAP bootstrap file for domain names of the simulated internet'));
    if (path === '/bootstrap/ipv4.json' || path === '/bootstrap/ipv6.json') {
      const version = path.includes('ipv4') ? 4 : 6;
      const cidrs = networks.filter((n) => n.range.version === version).map((n) => n.ip.cidr);
      return json(bootstrapBody(cidrs, baseUrl, `RDAP bootstrap file for IPv${version} address space of the simulated internet`));
    }
    return rdapError(404, 'Not Found', `no RDAP resource at ${path}`);
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = URL.parse(req.url ?? '/', 'http://localhost')?.pathname ?? '/';
    requests.push(path);
    const answer = req.method === 'GET' || req.method === 'HEAD' ? route(path) : rdapError(405, 'Method Not Allowed', 'only GET and HEAD are supported');
    timers.later(options.latencyMs ?? 0, () => {
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': answer.type, 'content-length': Buffer.byteLength(text), 'access-control-allow-origin': '*' });
      res.end(req.method === 'HEAD' ? undefined : text);
    });
  };

  const { server, port } = await withPortRetry(options.port, async (wanted) => {
    const candidate = http.createServer(onRequest);
    return { server: candidate, port: await listenTcp(candidate, wanted, host) };
  });
  origin = `http://${host}:${port}`;

  let stopping: Promise<void> | undefined;
  return {
    port,
    baseUrl: `${origin}/rdap/`,
    bootstrapUrl: `${origin}/bootstrap/dns.json`,
    requests,
    stop() {
      stopping ??= (async () => {
        timers.cancelAll();
        const closed = closeTcp(server);
        server.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}

function rdapError(status: number, title: string, description: string): { status: number; body: unknown; type: string } {
  return { status, body: errorBody(status, title, description), type: RDAP_TYPE };
}

function json(body: unknown): { status: number; body: unknown; type: string } {
  return { status: 200, body, type: 'application/json' };
}

function longestMatch(networks: { ip: RdapIp; range: IpRange }[], ip: string): { ip: RdapIp; range: IpRange } | undefined {
  return networks.filter((n) => rangeContains(n.range, ip)).sort((a, b) => b.range.prefix - a.range.prefix)[0];
}
