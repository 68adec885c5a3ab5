// Can a domain's MX hosts receive mail at all? Each MX host's A/AAAA (RFC 5321 5.1: a host
// without an address is unusable; when none has one, mail cannot be delivered), and the findings
// that follow, as data: dns_lookup and email_security_check report them, and the portfolio
// scanner counts the same findings towards `needs_attention`. A failed address lookup is
// "unknown", never "no address".
import { isDnsFailure, type Rcode, type Resolver, type RrOf } from '../resolver/types.ts';

export type MxHostStatus = 'has_address' | 'no_address' | 'nxdomain' | 'lookup_failed' | 'null_mx' | 'not_checked';

export interface MxHostAddresses {
  exchange: string;
  status: MxHostStatus;
  addresses: string[];
  /** The failing rcodes when status is lookup_failed, e.g. "A SERVFAIL". */
  error?: string;
}

export type MxFindingCode = 'null_mx' | 'mx_host_no_address' | 'mx_some_hosts_no_address' | 'mx_host_lookup_failed';

export interface MxFinding {
  code: MxFindingCode;
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** The MX hosts the finding is about. */
  hosts: string[];
}

/** Stable codes; the messages are what every surface shows. */
export const MX_FINDINGS = {
  null_mx: { severity: 'error', message: 'null MX (RFC 7505): the domain accepts no mail' },
  mx_host_no_address: { severity: 'error', message: 'the MX host has no address: mail to this domain cannot be delivered' },
  mx_some_hosts_no_address: { severity: 'warning', message: 'some MX hosts have no address: senders skip them and use the others' },
  mx_host_lookup_failed: { severity: 'warning', message: 'the address of an MX host could not be looked up, so whether it can receive mail is unknown' },
} as const satisfies Record<MxFindingCode, { severity: MxFinding['severity']; message: string }>;

/** Looks up the address of the first `maxHosts` MX hosts (in preference order); the rest are `not_checked`. */
export async function mxHostAddresses(mx: readonly RrOf<'MX'>[], resolver: Resolver, maxHosts: number): Promise<MxHostAddresses[]> {
  const hosts = [...new Set([...mx].sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange)).map((r) => r.exchange.replace(/\.$/, '').toLowerCase() || '.'))];
  return Promise.all(
    hosts.map(async (exchange, i): Promise<MxHostAddresses> => {
      if (exchange === '.') return { exchange, status: 'null_mx', addresses: [] };
      if (i >= maxHosts) return { exchange, status: 'not_checked', addresses: [] };
      const [a, aaaa] = await Promise.all([resolver.resolve(exchange, 'A'), resolver.resolve(exchange, 'AAAA')]);
      const addresses = [...a.answers, ...aaaa.answers].map((r) => r.address);
      return { exchange, addresses, ...hostStatus(addresses.length > 0, a.rcode, aaaa.rcode) };
    }),
  );
}

function hostStatus(hasAddress: boolean, a: Rcode, aaaa: Rcode): Pick<MxHostAddresses, 'status' | 'error'> {
  if (hasAddress) return { status: 'has_address' };
  const failed = [['A', a] as const, ['AAAA', aaaa] as const].filter(([, rcode]) => isDnsFailure(rcode));
  if (failed.length > 0) return { status: 'lookup_failed', error: failed.map(([type, rcode]) => `${type} ${rcode}`).join(', ') };
  return { status: a === 'NXDOMAIN' || aaaa === 'NXDOMAIN' ? 'nxdomain' : 'no_address' };
}

/** The findings about a domain's MX hosts (none when every host checked has an address). */
export function mxFindings(hosts: readonly MxHostAddresses[]): MxFinding[] {
  const make = (code: MxFindingCode, list: readonly MxHostAddresses[], message?: string): MxFinding => ({ code, severity: MX_FINDINGS[code].severity, message: message ?? MX_FINDINGS[code].message, hosts: list.map((h) => h.exchange) });
  if (hosts.some((h) => h.status === 'null_mx')) return [make('null_mx', hosts.filter((h) => h.status === 'null_mx'))];
  const missing = hosts.filter((h) => h.status === 'no_address' || h.status === 'nxdomain');
  const failed = hosts.filter((h) => h.status === 'lookup_failed');
  const usable = hosts.filter((h) => h.status === 'has_address' || h.status === 'not_checked');
  const out: MxFinding[] = [];
  if (missing.length > 0) {
    const names = missing.map((h) => `${h.exchange} (${h.status === 'nxdomain' ? 'name does not exist' : 'no A/AAAA record'})`).join(', ');
    // Only when no other host may take the mail is it undeliverable; an unknown host might.
    if (usable.length === 0 && failed.length === 0) out.push(make('mx_host_no_address', missing, `${MX_FINDINGS.mx_host_no_address.message}: ${names}`));
    else out.push(make('mx_some_hosts_no_address', missing, `${MX_FINDINGS.mx_some_hosts_no_address.message}: ${names}`));
  }
  if (failed.length > 0) out.push(make('mx_host_lookup_failed', failed, `${MX_FINDINGS.mx_host_lookup_failed.message}: ${failed.map((h) => `${h.exchange} (${h.error ?? 'failed'})`).join(', ')}`));
  return out;
}
