import { z } from 'zod';
import { addDomains, normalizeDomainName } from '../../store/index.ts';
import { ok, okSchema } from '../envelope.ts';
import { errorResponse } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { domainLimitError } from '../plan-usage.ts';
import { invalidateSummary } from '../summary.ts';

// POST /api/v1/domains/: names are RFC 1035 host names (IDN → punycode); IPs, URLs and bad labels
// are refused one by one with a reason while the rest are added. Names new to monitoring get a
// priority scan; if queueing it fails, the rescan planner still finds them due (next_scan_at now).

export const MAX_DOMAINS_PER_ADD = 500;

const resultSchema = z
  .object({
    input: z.string().meta({ description: 'The name as sent.' }),
    domain: z.string().nullable().meta({ description: 'Normalized name (lower case, A-label); null when invalid.' }),
    id: z.number().int().nullable().meta({ description: 'Domain id in the account; null when invalid.' }),
    result: z.enum(['added', 'already_monitored', 'invalid']).meta({ description: '`added` (new, or re-added after removal/inactivity), `already_monitored` (active already, or repeated in this request), `invalid`.' }),
    reason: z.string().optional().meta({ description: 'Why the name was refused (invalid only).' }),
  })
  .meta({ id: 'AddDomainResult' });

export const addDomainsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/domains/',
  operationId: 'add_domains',
  summary: 'Add domains for monitoring',
  description: 'The plan limits the domains an account lists (active and inactive; `GET /api/v1/` shows the limit and the usage): a request whose new names would pass it adds none of them (409 `domain_limit_reached`). Names already listed do not count.',
  tags: ['domains'],
  body: z.object({ domains: z.array(z.string().max(1_000)).min(1).max(MAX_DOMAINS_PER_ADD).meta({ description: `1-${MAX_DOMAINS_PER_ADD} domain names.` }) }).meta({ id: 'AddDomainsRequest' }),
  responses: {
    '200': {
      description: 'One result per name sent, in order; `meta` counts them.',
      content: { 'application/json': { schema: okSchema('AddDomainsResponse', z.array(resultSchema), z.object({ added: z.number().int(), already_monitored: z.number().int(), invalid: z.number().int() })) } },
    },
    '400': errorResponse(`validation_error: no list, more than ${MAX_DOMAINS_PER_ADD} names, or a name that is not a string; invalid_request: malformed JSON.`),
    '409': errorResponse('domain_limit_reached: the names new to the list would take the account past its plan\'s domains (active and inactive; the detail names the limit). Nothing is added.'),
  },
  handle: async ({ ctx, caller, input }) => {
    const names = input.body.domains;
    const r = await addDomains(ctx.db, caller.account._id, names, { intervalS: ctx.intervalS, maxDomains: caller.plan.maxDomains }).catch((err: unknown) => {
      throw domainLimitError(err, caller.plan);
    });
    const byName = new Map(r.domains.map((d) => [d.domain, d]));
    const seen = new Set<string>();
    const results = names.map((name) => {
      const check = normalizeDomainName(name);
      if (!check.ok) return { input: name, domain: null, id: null, result: 'invalid' as const, reason: check.reason };
      const d = byName.get(check.domain)!;
      const first = !seen.has(check.domain);
      seen.add(check.domain);
      return { input: name, domain: d.domain, id: d.id, result: first && d.outcome !== 'existing' ? ('added' as const) : ('already_monitored' as const) };
    });
    await invalidateSummary(ctx.redis, caller.account._id);
    const due = r.domains.filter((d) => d.scan_now).map((d) => d.domain);
    if (due.length > 0) {
      await ctx.requestScan(due).catch((err: Error) => ctx.log.warn({ err: err.message, domains: due.length }, 'priority scan request failed; the planner will scan them'));
    }
    const count = (k: string) => results.filter((x) => x.result === k).length;
    return ok(results, { added: count('added'), already_monitored: count('already_monitored'), invalid: count('invalid') });
  },
});
