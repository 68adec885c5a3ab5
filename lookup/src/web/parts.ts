import { field, html, postForm, submit, type VNode } from '@dv/web';
import { TOOLS } from '../tools.ts';

// Parts more than one page shows: the search box, the list of tools and the free-key form.

/** One line per tool, for people (tools.ts holds the longer text agents read). */
const TOOL_LINES: Readonly<Record<string, string>> = {
  dns: 'Every DNS record of a domain, its mail gateway and detected technology; an IP address gives its PTR name.',
  'email-security': 'MX, SPF with the 10-lookup verdict, DMARC policy and mail provider in one overview.',
  dkim: 'The DKIM keys a domain publishes, their selectors and the providers they belong to.',
  whois: 'Registrar, status, creation and expiry dates and name servers of a domain or IP address.',
  spf: 'The SPF record with its whole include tree and the count against the limit of 10 lookups.',
  dmarc: 'Whether DMARC is published, its policy (none, quarantine or reject) and its tags.',
  blacklist: 'A domain\'s mail servers or an IP address against the major email blacklists.',
  validate: 'Checks a pasted SPF or DMARC record before you publish it: findings, score and grade.',
};

export function searchForm(value: string, error?: string): VNode {
  return html`<form method="get" action="/search" role="search" aria-label="Look up" class="search">
    ${field({ name: 'q', label: 'Domain, IP address, email address, or an SPF or DMARC record', type: 'search', value, error, required: true, hint: 'For example example.com, 192.0.2.1, you@example.com or v=spf1 include:_spf.example.com -all', autocomplete: 'off' })}
    ${submit('Look up')}
  </form>`;
}

export function toolList(): VNode {
  return html`<ul class="tool-list">
    ${TOOLS.map(
      (t) => html`<li>
        <strong>${t.title}</strong> <span class="muted">${t.target === 'record' ? 'GET /v1/validate?record=…' : `GET /v1/${t.slug}/{target}`}</span>
        <br />${TOOL_LINES[t.slug] ?? t.title}
      </li>`,
    )}
  </ul>`;
}

export function keyForm(csrf: string, value: string, lookupsPerDay: number, error?: string): VNode {
  return postForm(
    '/key',
    csrf,
    html`<p>A free key allows ${lookupsPerDay} lookups a day. Give your email address: we send a link that shows the key once. No password, no account.</p>
      ${field({ name: 'email', label: 'Email address', type: 'email', value, error, required: true, autocomplete: 'email' })}
      ${submit('Email me a key link')}`,
    { label: 'Get a free API key', className: 'key-form' },
  );
}
