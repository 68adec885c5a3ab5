// One world file = one simulated internet: DNS data, scripted MX hosts, RDAP registration data.
import { z } from 'zod';
import { durationMs } from './schema/common.ts';
import { dnsRecordSchema, dnsSchema, nameBehaviourSchema } from './schema/dns.ts';
import { rdapSchema } from './schema/rdap.ts';
import { smtpSchema } from './schema/smtp.ts';

export { dnsRecordSchema, dnsSchema, nameBehaviourSchema, rdapSchema, smtpSchema };

export const worldSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().default('world'),
    description: z.string().optional(),
    // Base network latency added to every DNS answer, SMTP reply and RDAP response.
    latencyMs: durationMs.default(0),
    // Extra SMTP reply latency toward some client addresses: a slow link between one probe host and
    // the internet (the cluster harness's stand-in for netem, which this kernel lacks).
    clientLatencyMs: z.record(z.ipv4(), durationMs).default({}),
    dns: dnsSchema.default({ records: [], behaviours: {}, signedZones: [] }),
    smtp: smtpSchema.default({ hosts: [] }),
    rdap: rdapSchema.default({ domains: {}, ips: [] }),
  })
  .superRefine((world, ctx) => {
    checkCnameExclusivity(world.dns.records, ctx);
    checkHosts(world, ctx);
  });

interface ParsedWorld {
  dns: z.output<typeof dnsSchema>;
  smtp: z.output<typeof smtpSchema>;
}

// RFC 1034 §3.6.2: a name with a CNAME has no other data, or resolvers disagree on the answer.
function checkCnameExclusivity(records: ParsedWorld['dns']['records'], ctx: z.RefinementCtx): void {
  const typesByName = new Map<string, Set<string>>();
  for (const record of records) {
    const types = typesByName.get(record.name) ?? new Set<string>();
    types.add(record.type);
    typesByName.set(record.name, types);
  }
  for (const [name, types] of typesByName) {
    if (types.has('CNAME') && types.size > 1) {
      ctx.addIssue({ code: 'custom', path: ['dns', 'records'], message: `${name} has a CNAME and other records (${[...types].join(', ')})` });
    }
  }
  records.forEach((record, index) => {
    if (record.type === 'CNAME' && records.filter((r) => r.type === 'CNAME' && r.name === record.name).length > 1) {
      ctx.addIssue({ code: 'custom', path: ['dns', 'records', index], message: `${record.name} has more than one CNAME` });
    }
  });
}

// Hosts must be reachable by name inside the world, with one loopback address each.
function checkHosts(world: ParsedWorld, ctx: z.RefinementCtx): void {
  const seenNames = new Map<string, number>();
  const seenIps = new Map<string, number>();
  world.smtp.hosts.forEach((host, index) => {
    const path = ['smtp', 'hosts', index];
    const nameOwner = seenNames.get(host.name);
    if (nameOwner !== undefined) ctx.addIssue({ code: 'custom', path, message: `host name ${host.name} is also used by smtp.hosts[${nameOwner}]` });
    const ipOwner = seenIps.get(host.ip);
    if (ipOwner !== undefined) ctx.addIssue({ code: 'custom', path, message: `ip ${host.ip} is also used by smtp.hosts[${ipOwner}]` });
    seenNames.set(host.name, index);
    seenIps.set(host.ip, index);
    const hasA = world.dns.records.some((r) => r.type === 'A' && r.name === host.name && r.address === host.ip);
    if (!hasA) {
      ctx.addIssue({ code: 'custom', path, message: `host ${host.name} needs an A record "${host.name} A ${host.ip}" in dns.records` });
    }
  });
}

export type WorldInput = z.input<typeof worldSchema>;
export type World = z.output<typeof worldSchema>;
export type { DnsRecord, DnsRecordInput, DnsRecordType, DnsSection, DnsSectionInput, NameBehaviour, NameBehaviourInput } from './schema/dns.ts';
export type { DropPoint, HostileMode, SmtpBehaviour, SmtpHostSpec, SmtpHostSpecInput } from './schema/smtp.ts';
export type { RdapDomain, RdapIp, RdapSection, RdapSectionInput } from './schema/rdap.ts';
