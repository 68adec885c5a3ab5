// Validation of the budget settings, kept beside the code so config.ts stays a list.
import { z } from 'zod';
import { OPERATOR_TABLE } from './operator-table.ts';

/** A rate in requests per second; fractions allowed (0.5 = one every two seconds). */
export const qps = (fallback: number) => z.coerce.number().positive().max(1_000_000).default(fallback);

/**
 * PORTFOLIO_DNS_OPERATOR_QPS: a JSON object of budget overrides, keyed by an operator table name
 * ("Route 53") or by the registrable domain of a zone's NS hosts ("example-dns.net").
 */
export const operatorOverrides = () =>
  z
    .string()
    .default('')
    .transform((v, ctx): Record<string, number> => {
      if (v.trim() === '') return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object such as {"Route 53": 1000, "example-dns.net": 10}' });
        return {};
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return {};
      }
      const names = new Set(OPERATOR_TABLE.map((r) => r.name));
      const out: Record<string, number> = {};
      for (const [key, value] of Object.entries(parsed)) {
        if (typeof value !== 'number' || !(value > 0)) ctx.addIssue({ code: 'custom', message: `"${key}": the budget must be a positive number of queries per second` });
        else if (!names.has(key) && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(key)) ctx.addIssue({ code: 'custom', message: `"${key}" is neither an operator of the table (${[...names].join(', ')}) nor a domain` });
        else out[key] = value;
      }
      return out;
    });
