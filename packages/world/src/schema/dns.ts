// DNS part of a world: a flat record list plus per-name misbehaviour.
import { z } from 'zod';
import { dnsName, durationMs, note } from './common.ts';

const base = { name: dnsName, ttl: z.number().int().min(0).max(2_147_483_647).default(300), note };

// RFC 1035 §3.3: one character-string holds at most 255 octets; longer text must be split by the author.
const characterString = z
  .string()
  .refine((text) => Buffer.byteLength(text, 'utf8') <= 255, {
    message: 'a TXT character-string holds at most 255 bytes; split it into an array of strings',
  });
const txtText = z.union([characterString, z.array(characterString).min(1)]);

const u16 = z.number().int().min(0).max(65_535);
const u32 = z.number().int().min(0).max(4_294_967_295);
const u8 = z.number().int().min(0).max(255);

export const dnsRecordSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...base, type: z.literal('A'), address: z.ipv4() }),
  z.strictObject({ ...base, type: z.literal('AAAA'), address: z.ipv6() }),
  z.strictObject({
    ...base,
    type: z.literal('MX'),
    priority: u16,
    // "." is the null MX of RFC 7505: the domain accepts no mail.
    exchange: z.union([z.literal('.'), dnsName]),
  }),
  z.strictObject({ ...base, type: z.literal('TXT'), text: txtText }),
  z.strictObject({ ...base, type: z.literal('SPF'), text: txtText }),
  z.strictObject({ ...base, type: z.literal('CNAME'), target: dnsName }),
  z.strictObject({ ...base, type: z.literal('NS'), target: dnsName }),
  z.strictObject({ ...base, type: z.literal('PTR'), target: dnsName }),
  z.strictObject({
    ...base,
    type: z.literal('SOA'),
    primary: dnsName,
    admin: dnsName,
    serial: u32.default(1),
    refresh: u32.default(3600),
    retry: u32.default(600),
    expire: u32.default(604_800),
    minimum: u32.default(300),
  }),
  z.strictObject({ ...base, type: z.literal('CAA'), flags: u8.default(0), tag: z.string().regex(/^[a-z0-9]+$/i), value: z.string() }),
  z.strictObject({ ...base, type: z.literal('SRV'), priority: u16, weight: u16, port: u16, target: dnsName }),
  z.strictObject({
    ...base,
    type: z.literal('DNSKEY'),
    flags: u16,
    protocol: u8.default(3),
    algorithm: u8,
    key: z.base64(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('DS'),
    keyTag: u16,
    algorithm: u8,
    digestType: u8,
    digest: z.hex().refine((hex) => hex.length % 2 === 0, { message: 'digest must be whole bytes of hex' }),
  }),
]);

export const nameBehaviourSchema = z.strictObject({
  note,
  servfail: z.boolean().default(false),
  timeout: z.boolean().default(false),
  truncate: z.boolean().default(false),
  latencyMs: durationMs.default(0),
});

export const dnsSchema = z.strictObject({
  records: z.array(dnsRecordSchema).default([]),
  // Keyed by exact owner name (no wildcards), e.g. {"servfail.test": {"servfail": true}}.
  behaviours: z.record(dnsName, nameBehaviourSchema).default({}),
  // Names at or below a signed zone are answered with the AD bit, as a validating resolver would.
  signedZones: z.array(dnsName).default([]),
});

export type DnsRecordInput = z.input<typeof dnsRecordSchema>;
export type DnsRecord = z.output<typeof dnsRecordSchema>;
export type DnsRecordType = DnsRecord['type'];
export type NameBehaviour = z.output<typeof nameBehaviourSchema>;
export type NameBehaviourInput = z.input<typeof nameBehaviourSchema>;
export type DnsSectionInput = z.input<typeof dnsSchema>;
export type DnsSection = z.output<typeof dnsSchema>;
