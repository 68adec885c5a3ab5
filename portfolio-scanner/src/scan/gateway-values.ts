// The values of `email_gateway` (docs/portfolio-scanner.md "Gateway values"), pure. One stable
// value per vendor, the provider table's `vendor` (@dv/verdict PROVIDERS), so a filter, a group in
// the dashboard and a change record name a vendor alike; two values beside the table; any other
// mail host is named by its registrable domain. The same value is stored in the corpus result
// (and its previous_email_gateway), the account summaries and the change records.
import type { EmailGateway } from '@dv/mailsec';
import { PROVIDERS, registrableDomain } from '@dv/verdict';

/** The most preferred MX host is under the domain's own registrable domain. */
export const SELF_HOSTED = { id: 'self_hosted', value: 'Self-hosted' } as const;
/** RFC 7505 null MX ("0 ."): the domain takes no mail. */
export const NULL_MX = { id: 'null_mx', value: 'Null MX' } as const;
/** The filter value selecting a null `email_gateway` (no MX records, or not scanned yet). */
export const NO_GATEWAY = 'none';

/** Every fixed value with its id, vendors in the table's order, then the two above. */
export const GATEWAY_VALUES: readonly { id: string; value: string }[] = [...PROVIDERS.map((p) => ({ id: p.id, value: p.vendor })), SELF_HOSTED, NULL_MX];

/**
 * Lower-cased value, id and (for a vendor) the table's display name → the value. The display
 * names are what the scanner stored before the vocabulary; a client that kept one still filters.
 */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ...PROVIDERS.flatMap((p) => [p.vendor, p.id, p.name].map((k) => [k.toLowerCase(), p.vendor] as const)),
  ...[SELF_HOSTED, NULL_MX].flatMap((s) => [s.value, s.id].map((k) => [k.toLowerCase(), s.value] as const)),
  ['self hosted', SELF_HOSTED.value],
  ['none (null mx)', NULL_MX.value],
]);

/** A host name's shape (the registrable domain of a mail host the table does not know). */
const HOST = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)+$/;

/** `email_gateway` of a scanned domain from mailsec's emailGateway (null: no MX records). */
export function gatewayValue(domain: string, gateway: Pick<EmailGateway, 'id' | 'kind'> | null): string | null {
  if (gateway === null) return null;
  if (gateway.kind === 'null_mx') return NULL_MX.value;
  const row = PROVIDERS.find((p) => p.id === gateway.id);
  if (row) return row.vendor;
  // Not in the table: the id is the MX host's registrable domain.
  return gateway.id === registrableDomain(domain) ? SELF_HOSTED.value : gateway.id;
}

/**
 * The stored value a filter names: a value, a vendor id or a display name in any case; `none` →
 * null; a mail host's domain → lower case. Undefined when the input is none of these (the API
 * answers 400 rather than an empty list for a misspelt vendor).
 */
export function gatewayFilterValue(input: string): string | null | undefined {
  const k = input.trim().toLowerCase();
  if (k === NO_GATEWAY) return null;
  const known = ALIASES.get(k);
  if (known !== undefined) return known;
  const host = k.replace(/\.$/, '');
  return HOST.test(host) ? host : undefined;
}

/**
 * A value stored before the vocabulary, in today's terms: a display name → its vendor,
 * `none (null MX)` → Null MX, the domain's own registrable domain → Self-hosted; today's values
 * and other mail hosts' domains are returned as they are.
 */
export function currentGatewayValue(domain: string, stored: string | null): string | null {
  if (stored === null) return null;
  const known = ALIASES.get(stored.toLowerCase());
  if (known !== undefined) return known;
  return stored === registrableDomain(domain) ? SELF_HOSTED.value : stored;
}

/** The filter's documentation: every accepted value, for the OpenAPI description and the MCP tool. */
export const GATEWAY_FILTER_DESCRIPTION =
  'Gateway vendor, matched case-insensitively by the value `email_gateway` returns or by its id: ' +
  GATEWAY_VALUES.map((g) => `\`${g.value}\` (\`${g.id}\`)`).join(', ') +
  '. `Self-hosted`: the most preferred MX host is under the domain\'s own registrable domain; `Null MX`: an RFC 7505 null MX (the domain takes no mail). ' +
  'A mail host the table does not know is named by its registrable domain in lower case (e.g. `mailhost.example`), and filters by it. ' +
  `\`${NO_GATEWAY}\`: no gateway detected (no MX records, or not scanned yet).`;
