// The simulated internet on the cluster's internet host: DNS on :53 and RDAP on :8053 of the host's
// address, every MX host on :25 of its own address, and a small control server (:8099) through which
// the operator reads what the MX hosts saw per source address.
//   node infra/src/cluster/world-agent.ts <world.json> <host address> <per-IP session limit>
// Prints one JSON line {"ready":true,…} once everything listens.
import http from 'node:http';
import { loadWorld, startWorld } from '../world/index.ts';
import { perIpFigures } from './per-ip.ts';
import { WORLD_PORTS } from './topology.ts';

const [path, host, limitArg] = process.argv.slice(2);
if (!path || !host) {
  process.stderr.write('usage: world-agent.ts <world.json> <host address> [per-IP session limit]\n');
  process.exit(2);
}
const perIpLimit = Number(limitArg ?? 5);
const world = await startWorld(loadWorld(path), { host, dnsPort: WORLD_PORTS.dns, smtpPort: WORLD_PORTS.smtp, rdapPort: WORLD_PORTS.rdap });

function stats(): unknown {
  let sessions = 0;
  let violations = 0;
  const bySource: Record<string, number> = {};
  const hosts = [...world.hosts.values()].map((h) => {
    const perIp = perIpFigures(h.sessions, perIpLimit);
    for (const [ip, f] of Object.entries(perIp)) {
      violations += f.violations;
      bySource[ip] = (bySource[ip] ?? 0) + f.sessions;
    }
    sessions += h.sessionsTotal;
    return { name: h.name, ip: h.ip, sessions: h.sessionsTotal, open: h.sessionsCurrent, per_ip: perIp };
  });
  return { sessions, violations, per_ip_limit: perIpLimit, sessions_by_source: bySource, hosts };
}

const control = http.createServer((req, res) => {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/stats') return reply(200, stats());
  if (req.method === 'POST' && req.url === '/reset') {
    world.reset();
    return reply(200, { reset: true });
  }
  return reply(404, { error: 'not found' });
});
await new Promise<void>((resolve) => control.listen(WORLD_PORTS.control, host, resolve));
process.stdout.write(`${JSON.stringify({ ready: true, env: { DNS_SERVERS: `${host}:${WORLD_PORTS.dns}`, SMTP_PORT: String(WORLD_PORTS.smtp), RDAP_BOOTSTRAP_URL: world.rdapBootstrapUrl }, mx_hosts: world.hosts.size })}\n`);

const stop = (): void => {
  control.close();
  void world.stop().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
