// Domain-name rules SPF applies: which <domain> can be checked at all (RFC 7208 4.3), what a
// domain-spec must end with (7.1), and how an expanded target becomes a query name (7.3).

/** toplabel = ( *alphanum ALPHA *alphanum ) / ( 1*alphanum "-" *( alphanum / "-" ) alphanum ) */
const TOPLABEL = /^(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;

export function isTopLabel(label: string): boolean {
  return TOPLABEL.test(label);
}

function labelsOk(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((l) => l.length > 0 && l.length <= 63);
}

/**
 * RFC 7208 4.3: a malformed <domain> (empty or over-long label, a single label, an address
 * literal) makes check_host() return "none" without any lookup.
 */
export function checkableDomain(domain: string): string | null {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  if (!labelsOk(name) || !name.includes('.')) return null;
  if (name.startsWith('[') || !/^[\x21-\x7e]+$/.test(name)) return null;
  const top = name.slice(name.lastIndexOf('.') + 1);
  if (/^\d+$/.test(top)) return null; // an IPv4 address is not a domain
  return name;
}

/**
 * Turns an expanded domain-spec into a query name: drops the trailing dot, shortens names over
 * 253 characters by removing whole labels from the left (7.3), and returns null when the result
 * still cannot be queried (empty or over-long label). Such a target is treated as non-existent.
 */
export function toQueryName(expanded: string): string | null {
  let name = expanded.endsWith('.') ? expanded.slice(0, -1) : expanded;
  while (name.length > 253) {
    const dot = name.indexOf('.');
    if (dot < 0) return null;
    name = name.slice(dot + 1);
  }
  if (!labelsOk(name) || !/^\p{ASCII}+$/u.test(name)) return null;
  return name;
}

/** RFC 7208 5.5: "name" equals target or is a subdomain of it, ignoring case and a final dot. */
export function isSameOrSubdomain(name: string, target: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  const t = target.toLowerCase().replace(/\.$/, '');
  return n === t || n.endsWith(`.${t}`);
}
