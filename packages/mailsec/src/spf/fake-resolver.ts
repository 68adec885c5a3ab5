// An in-memory Resolver for the SPF tests (not exported): names map to records per type, or to
// a DNS failure for every type. Absent names are NXDOMAIN, present names without the type NODATA.
import type { Rcode, ResolveResult, Resolver, Rr, RrType } from '../resolver/types.ts';

export type FakeZone = Record<string, Partial<Record<RrType, ReadonlyArray<string | readonly string[] | readonly [number, string]>>> | 'SERVFAIL' | 'TIMEOUT'>;

export class FakeResolver implements Resolver {
  readonly zone: FakeZone;
  readonly queries: string[] = [];

  constructor(zone: FakeZone) {
    this.zone = Object.fromEntries(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  }

  async resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> {
    const key = name.toLowerCase().replace(/\.$/, '');
    this.queries.push(`${key}/${type}`);
    const entry = this.zone[key];
    const result = (rcode: Rcode, answers: Rr[] = []) => ({ name, type, rcode, answers, cnames: [], authenticated: false, ttl: 300, fromCache: false }) as unknown as ResolveResult<T>;
    if (entry === undefined) return result('NXDOMAIN');
    if (entry === 'SERVFAIL' || entry === 'TIMEOUT') return result(entry);
    const values = entry[type] ?? [];
    const answers = values.map((v): Rr => {
      const base = { name: key, ttl: 300 };
      switch (type) {
        case 'A':
        case 'AAAA':
          return { ...base, type, address: String(v) };
        case 'MX': {
          const [priority, exchange] = v as readonly [number, string];
          return { ...base, type, priority, exchange };
        }
        case 'TXT':
        case 'SPF':
          return { ...base, type, strings: typeof v === 'string' ? [v] : v.map(String) };
        case 'PTR':
          return { ...base, type, target: String(v) };
        default:
          throw new Error(`FakeResolver: ${type} not supported`);
      }
    });
    return result(answers.length > 0 ? 'NOERROR' : 'NODATA', answers);
  }
}
