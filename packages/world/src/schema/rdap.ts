// RDAP part of a world: registration data for domains and IP networks.
import { z } from 'zod';
import { parseCidr } from '../names.ts';
import { dnsName, note } from './common.ts';

// Plain dates are accepted for readability and served as midnight UTC, the way registries publish them.
const timestamp = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be a date such as 2024-01-31 or an ISO timestamp such as 2024-01-31T12:00:00Z' })
  .transform((value) => (value.length === 10 ? `${value}T00:00:00Z` : value));

export const rdapDomainSchema = z.strictObject({
  note,
  registrar: z.string().min(1),
  registrarIanaId: z.number().int().positive().optional(),
  created: timestamp,
  expires: timestamp,
  updated: timestamp.optional(),
  status: z.array(z.string().min(1)).default(['active']),
  nameservers: z.array(dnsName).default([]),
  registrantOrg: z.string().optional(),
  registrantCountry: z.string().regex(/^[A-Z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code such as "FR"' }).optional(),
  dnssec: z.boolean().default(false),
});

export const rdapIpSchema = z.strictObject({
  note,
  cidr: z.string().refine((cidr) => parseCidr(cidr) !== undefined, { message: 'must be an IPv4 or IPv6 CIDR such as 192.0.2.0/24' }),
  name: z.string().min(1),
  country: z.string().regex(/^[A-Z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code such as "FR"' }),
  asn: z.number().int().positive().optional(),
  handle: z.string().optional(),
});

export const rdapSchema = z.strictObject({
  domains: z.record(dnsName, rdapDomainSchema).default({}),
  ips: z.array(rdapIpSchema).default([]),
});

export type RdapDomain = z.output<typeof rdapDomainSchema>;
export type RdapIp = z.output<typeof rdapIpSchema>;
export type RdapSectionInput = z.input<typeof rdapSchema>;
export type RdapSection = z.output<typeof rdapSchema>;
