// Email gateway / mailbox provider from MX records, by the same provider table the verification
// service uses (@dv/verdict providerForMx), so both products name a domain's mail host alike.
import { providerForMx } from '@dv/verdict';
import type { RrOf } from '../resolver/types.ts';

export interface EmailGateway {
  /** Provider id (e.g. "google", "mimecast") or the MX host's registrable domain when unknown. */
  id: string;
  /** Display name, e.g. "Google (Gmail / Workspace)"; the registrable domain when unknown. */
  name: string;
  kind: 'mailbox_provider' | 'security_gateway' | 'hosting' | 'self_hosted' | 'null_mx';
  /** The MX host the answer is based on (the most preferred one). */
  exchange: string;
}

export interface MxWithProvider {
  priority: number;
  exchange: string;
  provider: string;
  providerId: string;
  providerKind: EmailGateway['kind'];
}

/** MX records in preference order, each with its provider. */
export function mxWithProviders(mx: readonly RrOf<'MX'>[]): MxWithProvider[] {
  return [...mx]
    .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange))
    .map((r) => {
      const exchange = r.exchange.replace(/\.$/, '') || '.';
      if (exchange === '.') return { priority: r.priority, exchange, provider: 'none (null MX)', providerId: 'null_mx', providerKind: 'null_mx' as const };
      const p = providerForMx(exchange);
      return { priority: r.priority, exchange, provider: p.name, providerId: p.id, providerKind: p.kind };
    });
}

/**
 * The gateway is the provider of the most preferred MX host: mail arrives there first, whether
 * it is a filtering gateway in front of a mailbox provider or the provider itself. A null MX
 * (RFC 7505) means the domain takes no mail; no MX at all gives null.
 */
export function emailGateway(mx: readonly RrOf<'MX'>[]): EmailGateway | null {
  const first = mxWithProviders(mx)[0];
  if (!first) return null;
  return { id: first.providerId, name: first.provider, kind: first.providerKind, exchange: first.exchange };
}
