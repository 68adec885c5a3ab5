// Mapping between world records and dns2 wire resources. Type codes come from @dv/net's one
// record-type table, the one the platform's resolver reads too (dns2's own table lacks DS).
import type { Resource } from 'dns2';
import { CLASS_IN, RR_TYPE } from '@dv/net';
import type { DnsRecord } from '../schema.ts';

// dns2 encodes each type from differently named fields; this is the one place that knows them.
function rdata(record: DnsRecord): Record<string, unknown> {
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return { address: record.address };
    case 'MX':
      return { priority: record.priority, exchange: record.exchange };
    case 'TXT':
    case 'SPF':
      return { data: Array.isArray(record.text) ? record.text : [record.text] };
    case 'CNAME':
    case 'PTR':
      return { domain: record.target };
    case 'NS':
      return { ns: record.target };
    case 'SOA':
      return {
        primary: record.primary,
        admin: record.admin,
        serial: record.serial,
        refresh: record.refresh,
        retry: record.retry,
        expiration: record.expire,
        minimum: record.minimum,
      };
    case 'CAA':
      return { flags: record.flags, tag: record.tag, value: record.value };
    case 'SRV':
      return { priority: record.priority, weight: record.weight, port: record.port, target: record.target };
    case 'DNSKEY':
      return { flags: record.flags, protocol: record.protocol, algorithm: record.algorithm, key: record.key };
    case 'DS': {
      // RFC 4034 §5.1: key tag, algorithm, digest type, digest; dns2 writes unknown types from `data`.
      const head = Buffer.alloc(4);
      head.writeUInt16BE(record.keyTag, 0);
      head.writeUInt8(record.algorithm, 2);
      head.writeUInt8(record.digestType, 3);
      return { data: Buffer.concat([head, Buffer.from(record.digest, 'hex')]) };
    }
  }
}

export function toResource(record: DnsRecord): Resource {
  return { name: record.name, type: RR_TYPE[record.type], class: CLASS_IN, ttl: record.ttl, ...rdata(record) } as unknown as Resource;
}
