// The simulated internet: DNS, MX hosts and RDAP on loopback, described by a JSON world file.
// See docs/simulated-internet.md.
import { fileURLToPath } from 'node:url';

export type {
  DnsRecord,
  DnsRecordInput,
  DnsRecordType,
  DropPoint,
  HostileMode,
  NameBehaviour,
  NameBehaviourInput,
  RdapDomain,
  RdapIp,
  SmtpBehaviour,
  SmtpHostSpec,
  SmtpHostSpecInput,
  World,
  WorldInput,
} from './schema.ts';
export { worldSchema } from './schema.ts';
export { WorldValidationError, loadWorld, parseRecords, parseWorld } from './load.ts';
export { startWorld } from './world.ts';
export type { StartWorldOptions, WorldHandle } from './world.ts';
export { startDnsServer } from './dns/server.ts';
export { startLyingDnsServer, type LiarMode, type LyingDnsServer } from './dns/liar.ts';
export type { DnsQuery, DnsServerHandle, DnsServerOptions } from './dns/server.ts';
export { listenDns } from './dns/transport.ts';
export type { DnsClient, DnsListener, DnsListenOptions, DnsRequestHandler, DnsSend, DnsTransport } from './dns/transport.ts';
export { startSmtpHost, startSmtpHosts } from './smtp/host.ts';
export type { SmtpHostHandle, SmtpHostOptions } from './smtp/host.ts';
export type { SmtpHostStats, SmtpSessionLog } from './smtp/stats.ts';
export { REPLIES as SMTP_REPLIES } from './smtp/replies.ts';
export { startRdapServer } from './rdap/server.ts';
export type { RdapServerHandle, RdapServerOptions } from './rdap/server.ts';
export { findFreePort } from './ports.ts';

// packages/world/worlds/default.json: the world tests and `npm run demo` use.
export const DEFAULT_WORLD_PATH = fileURLToPath(new URL('../worlds/default.json', import.meta.url));
