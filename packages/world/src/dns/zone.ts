// Authoritative answers computed from a flat record list: RCODE, answers, negative-answer SOA, AD.
import { ancestors, isAtOrBelow, normalizeName } from '../names.ts';
import type { DnsRecord } from '../schema.ts';
import { QTYPE_ANY, RR_TYPE } from '@dv/net';

export type Rcode = 'NOERROR' | 'NXDOMAIN';

export interface Answer {
  rcode: Rcode;
  answers: DnsRecord[];
  // The SOA of the enclosing zone on negative answers (RFC 2308), so resolvers can cache them.
  authority: DnsRecord[];
  authenticated: boolean;
}

// RFC 1034 §3.6.2 leaves the chain length to implementations; 8 is what common resolvers allow.
const MAX_CNAME_CHAIN = 8;

export class Zone {
  private readonly byName = new Map<string, DnsRecord[]>();
  // Names with no records of their own but with records below them (empty non-terminals) exist.
  private readonly existing = new Set<string>();
  private readonly signedZones: string[];

  constructor(records: readonly DnsRecord[], signedZones: readonly string[] = []) {
    for (const record of records) {
      const list = this.byName.get(record.name) ?? [];
      list.push(record);
      this.byName.set(record.name, list);
      this.existing.add(record.name);
      for (const ancestor of ancestors(record.name)) this.existing.add(ancestor);
    }
    this.signedZones = [...signedZones];
  }

  lookup(rawName: string, typeCode: number): Answer {
    const qname = normalizeName(rawName);
    const answers: DnsRecord[] = [];
    let current = qname;
    for (let hop = 0; hop <= MAX_CNAME_CHAIN; hop += 1) {
      const here = this.byName.get(current) ?? [];
      const matching = here.filter((r) => typeCode === QTYPE_ANY || RR_TYPE[r.type] === typeCode);
      if (matching.length > 0) {
        answers.push(...matching);
        return this.answer('NOERROR', answers, qname);
      }
      const cname = here.find((r) => r.type === 'CNAME');
      if (cname === undefined || cname.type !== 'CNAME') break;
      answers.push(cname);
      current = cname.target;
    }
    // RFC 6604: after a CNAME the RCODE describes the last name of the chain.
    const rcode: Rcode = this.existing.has(current) ? 'NOERROR' : 'NXDOMAIN';
    return this.answer(rcode, answers, qname, current);
  }

  private answer(rcode: Rcode, answers: DnsRecord[], qname: string, negativeName?: string): Answer {
    const authority = negativeName === undefined ? [] : this.enclosingSoa(negativeName);
    return { rcode, answers, authority, authenticated: this.signedZones.some((zone) => isAtOrBelow(qname, zone)) };
  }

  private enclosingSoa(name: string): DnsRecord[] {
    for (const candidate of [name, ...ancestors(name)]) {
      const soa = this.byName.get(candidate)?.filter((r) => r.type === 'SOA') ?? [];
      if (soa.length > 0) return soa;
    }
    return [];
  }
}
