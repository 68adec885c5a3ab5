// The simulated internet on the cluster's internet host: DNS on :53 and RDAP on :8053 of the host's
// address, every MX host on :25 of its own address, and a small control server (:8099) through which
// the operator reads what the MX hosts saw per source address. Politeness limits hold per
// (provider, source IP), and a provider may run many MX hosts (every Microsoft 365 tenant has its
// own): sessions are judged per provider of the provider table, against its concurrency limit.
//   node infra/src/cluster/world-agent.ts <world.json> <host address>
// Prints one JSON line {"ready":true,…} once everything listens.
import http from 'node:http';
import { providerForMx } from '@dv/verdict';
import { loadWorld, startWorld } from '@dv/world';
import type { SmtpSessionLog } from '@dv/world';
import { perIpFigures } from './per-ip.ts';
import { WORLD_PORTS } from './topology.ts';

const [path, host] = process.argv.slice(2);
if (!path || !host) {
  process.stderr.write('usage: world-agent.ts <world.json> <host address>\n');
  process.exit(2);
}
const world = await startWorld(loadWorld(path), { host, dnsPort: WORLD_PORTS.dns, smtpPort: WORLD_PORTS.smtp, rdapPort: WORLD_PORTS.rdap });

function stats(): unknown {
  const byProvider = new Map<string, { limit: number; spans: SmtpSessionLog[] }>();
  let sessions = 0;
  for (const h of world.hosts.values()) {
    const provider = providerForMx(h.name);
    const entry = byProvider.get(provider.id) ?? { limit: provider.politeness.maxConcurrentSessions, spans: [] };
    entry.spans.push(...h.sessions);
    byProvider.set(provider.id, entry);
    sessions += h.sessionsTotal;
  }
  let violations = 0;
  const bySource: Record<string, number> = {};
  // Addresses asked per source: the work each probe host carried (a kept connection carries many sessions' RCPTs).
  const rcptsBySource: Record<string, number> = {};
  for (const h of world.hosts.values()) {
    for (const s of h.sessions) rcptsBySource[s.clientIp] = (rcptsBySource[s.clientIp] ?? 0) + s.commands.filter((c) => /^RCPT\b/i.test(c)).length;
  }
  const providers = [...byProvider].map(([id, { limit, spans }]) => {
    const perIp = perIpFigures(spans, limit);
    for (const [ip, f] of Object.entries(perIp)) {
      violations += f.violations;
      bySource[ip] = (bySource[ip] ?? 0) + f.sessions;
    }
    return { provider: id, limit, sessions: spans.length, per_ip: perIp };
  });
  return { sessions, violations, sessions_by_source: bySource, rcpts_by_source: rcptsBySource, providers };
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
process.stdout.write(`${JSON.stringify({ ready: true, env: { DNS_SERVERS: `${host}:${WORLD_PORTS.dns}`, DNS_CANARIES: world.env.DNS_CANARIES, SMTP_PORT: String(WORLD_PORTS.smtp), RDAP_BOOTSTRAP_URL: world.rdapBootstrapUrl }, mx_hosts: world.hosts.size })}\n`);

const stop = (): void => {
  control.close();
  void world.stop().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
