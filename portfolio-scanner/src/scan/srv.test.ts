// SRV lookups under RFC 8020: which names are asked for each answer to the parent probes. A
// table of probe answers against a scripted resolver (a pure unit: what is asked, not how).
import { describe, expect, it } from 'vitest';
import { SRV_SERVICES, type Rcode, type Resolver, type ResolveResult, type RrType } from '@dv/mailsec';
import { lookupSrv, srvParent, srvParents } from './srv.ts';

function scripted(rcodes: Record<string, Rcode>): { resolver: Resolver; asked: string[] } {
  const asked: string[] = [];
  const resolver: Resolver = {
    async resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> {
      asked.push(name);
      const rcode = rcodes[name] ?? 'NXDOMAIN';
      return { name, type, rcode, answers: [], cnames: [], authenticated: false, ttl: 60, fromCache: false } as unknown as ResolveResult<T>;
    },
  };
  return { resolver, asked };
}

const under = (parent: string) => SRV_SERVICES.filter((s) => s.endsWith(`.${parent}`));

describe('lookupSrv', () => {
  it('knows the parents of the service list', () => {
    expect(srvParent('_sip._tls')).toBe('_tls');
    expect(srvParents()).toEqual(['_tcp', '_udp', '_tls']);
    expect(under('_tcp').length + under('_udp').length + under('_tls').length).toBe(SRV_SERVICES.length);
  });

  const cases: { name: string; parents: Record<string, Rcode>; services: string[] }[] = [
    { name: 'no parent exists: only the three probes', parents: {}, services: [] },
    { name: '_tcp is an empty non-terminal: its services', parents: { '_tcp.d.test': 'NODATA' }, services: under('_tcp') },
    { name: '_tls answers NOERROR: its services', parents: { '_tls.d.test': 'NOERROR' }, services: under('_tls') },
    { name: 'a failed probe rules nothing out', parents: { '_udp.d.test': 'SERVFAIL', '_tls.d.test': 'TIMEOUT' }, services: [...under('_udp'), ...under('_tls')] },
    { name: 'all exist: every service', parents: { '_tcp.d.test': 'NODATA', '_udp.d.test': 'NODATA', '_tls.d.test': 'NODATA' }, services: [...SRV_SERVICES] },
  ];
  it.each(cases)('$name', async ({ parents, services }) => {
    const { resolver, asked } = scripted(parents);
    const got = await lookupSrv('d.test', resolver);
    expect(got.map((l) => l.service).sort()).toEqual([...services].sort());
    expect(asked.sort()).toEqual([...['_tcp', '_udp', '_tls'].map((p) => `${p}.d.test`), ...services.map((s) => `${s}.d.test`)].sort());
  });

  it('returns each asked service with its own answer (failures included, for the unconfirmed rule)', async () => {
    const { resolver } = scripted({ '_tcp.d.test': 'NODATA', '_imap._tcp.d.test': 'SERVFAIL' });
    const got = await lookupSrv('d.test', resolver);
    expect(got.find((l) => l.service === '_imap._tcp')?.result.rcode).toBe('SERVFAIL');
    expect(got.find((l) => l.service === '_pop3._tcp')?.result.rcode).toBe('NXDOMAIN');
  });
});
