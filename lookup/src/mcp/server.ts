import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiError, problemBody } from '@dv/runtime';
import type { Caller } from '../caller.ts';
import { sourceBaseUrl } from '../config.ts';
import type { LookupContext } from '../context.ts';
import { envelopeShape, sourceLink, type LookupEnvelope } from '../envelope.ts';
import { requestFreeKey } from '../keys/flow.ts';
import { performLookup, type LookupRequest } from '../lookups.ts';
import { TOOLS, toolSpec, type ToolSpec } from '../tools.ts';
import { findTarget, parseResultId, resultId, SEARCH_TOOLS } from './ids.ts';

// The MCP server: the eight core tools from the tool table plus search, fetch and
// request_api_key. Stateless: one server per HTTP request, built for the caller that request
// authenticated, so no state ever lives between requests.

const SERVER_INFO = { name: 'domain-lookup', version: '1.0.0' };

const INSTRUCTIONS =
  'Live DNS and email-security lookups for one domain or IP per call: DNS records, email security (MX, SPF, DMARC), DKIM, WHOIS/RDAP, SPF include trees, DMARC policy, blacklists, and offline SPF/DMARC record validation. ' +
  'Each result has a plain-English `summary` to quote, a `report` block, structured `data`, and a `source` link to show the user. ' +
  'Anonymous use allows a small number of live lookups per day per IP; cached answers (cache: "cached") are free. ' +
  'When the allowance runs out, offer the user request_api_key (a free key by email) and configure it as "Authorization: Bearer <key>".';

const domainArg = z.string().max(1_024).describe('One domain name, e.g. "example.com" (no scheme, path or email address).');
const detailArg = z.enum(['full']).optional().describe('Set "full" for the complete, untruncated record set.');
const domainOrIpArgs = {
  domain: z.string().max(1_024).optional().describe('A domain name, e.g. "example.com", or an IP address.'),
  ip: z.string().max(64).optional().describe('An IPv4 or IPv6 address (alternative to domain).'),
};

// eslint-disable-next-line max-lines-per-function -- one registration per tool and prompt, read as a table
export function buildMcpServer(ctx: LookupContext, caller: Caller): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const lookup = async (req: LookupRequest): Promise<CallToolResult> => {
    try {
      return envelopeResult(await performLookup(ctx, caller, req, 'mcp'));
    } catch (err) {
      return errorResult(err, ctx);
    }
  };

  for (const spec of TOOLS) {
    const config = { title: spec.title, description: spec.description, outputSchema: envelopeShape, annotations: lookupAnnotations(spec) };
    if (spec.target === 'record') {
      server.registerTool(spec.name, { ...config, inputSchema: { record: z.string().max(65_536).describe('The SPF ("v=spf1 …") or DMARC ("v=DMARC1; …") record text to check.') } }, ({ record }) =>
        lookup({ tool: spec.name, record }),
      );
    } else if (spec.target === 'domain_or_ip') {
      const inputSchema = spec.detail ? { ...domainOrIpArgs, detail: detailArg } : domainOrIpArgs;
      server.registerTool(spec.name, { ...config, inputSchema }, (args: { domain?: string; ip?: string; detail?: 'full' }) => {
        const { domain, ip } = args;
        if (domain !== undefined && ip !== undefined && domain !== ip) return Promise.resolve(textError('Give either domain or ip, not both.'));
        return lookup({ tool: spec.name, target: domain ?? ip ?? '', detail: args.detail });
      });
    } else if (spec.detail) {
      server.registerTool(spec.name, { ...config, inputSchema: { domain: domainArg, detail: detailArg } }, ({ domain, detail }) => lookup({ tool: spec.name, target: domain, detail }));
    } else {
      server.registerTool(spec.name, { ...config, inputSchema: { domain: domainArg } }, ({ domain }) => lookup({ tool: spec.name, target: domain }));
    }
  }

  server.registerTool(
    'search',
    {
      title: 'Find lookups for a domain',
      description:
        'Deep-research entry point. Give a domain or a question that names one ("what is the DMARC policy of example.com?"); returns result ids of the form <tool>:<domain> for its DNS records, email security, DMARC and WHOIS. ' +
        'Pass an id to fetch to run that lookup. search itself performs no lookup and costs nothing.',
      inputSchema: { query: z.string().max(2_000).describe('A domain name, URL, email address or question naming one domain.') },
      outputSchema: { results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query }) => {
      const found = findTarget(query);
      const tools = found ? (found.isIp ? (['whois_lookup'] as const) : SEARCH_TOOLS) : [];
      const results = found
        ? tools.map((name) => {
            const spec = toolSpec(name);
            return { id: resultId(name, found.target), title: `${spec.title}: ${found.target}`, url: sourceLink(sourceBaseUrl(ctx.config), spec, { target: found.target }) };
          })
        : [];
      const text = found
        ? `Result ids for ${found.target} (pass one to fetch):\n${results.map((r) => `- ${r.id} (${r.title})`).join('\n')}`
        : 'No domain name or IP address found in the query. Ask again with one domain, e.g. "example.com".';
      return { content: [{ type: 'text', text }], structuredContent: { results } };
    },
  );

  server.registerTool(
    'fetch',
    {
      title: 'Run the lookup behind a result id',
      description:
        'Deep-research companion of search. Give a result id "<tool>:<domain>" (e.g. "dmarc_check:example.com"); runs that lookup and returns the full result (complete record set for DNS and email security) with its summary. ' +
        'Counts as one lookup unless cached.',
      inputSchema: { id: z.string().max(1_100).describe('A result id from search, "<tool>:<domain>".') },
      outputSchema: { ...envelopeShape, id: z.string(), title: z.string(), text: z.string(), url: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ id }) => {
      const parsed = parseResultId(id);
      if (!parsed) return textError(`"${id.slice(0, 100)}" is not a result id; ids look like "dns_lookup:example.com" (tools: ${TOOLS.filter((t) => t.target !== 'record').map((t) => t.name).join(', ')}).`);
      const result = await lookup({ tool: parsed.spec.name, target: parsed.target, detail: parsed.spec.detail ? 'full' : undefined });
      if (result.isError) return result;
      const envelope = result.structuredContent as unknown as LookupEnvelope;
      const text = envelopeText(envelope);
      return { content: [{ type: 'text', text }], structuredContent: { ...envelope, id, title: `${parsed.spec.title}: ${envelope.data.meta.domain}`, text, url: envelope.source } };
    },
  );

  server.registerTool(
    'request_api_key',
    {
      title: 'Get a free API key by email',
      description:
        `Sends a verification link to the given email address. When the user opens it, the page shows a free API key (dk_free_…, ${ctx.config.FREE_KEY_LOOKUPS_PER_DAY} lookups/day instead of ${ctx.config.ANONYMOUS_LOOKUPS_PER_DAY}) once; no password or account. ` +
        'Only call it with an address the user gave you for this purpose. Then tell the user to check their inbox and add the key to the MCP client as the header "Authorization: Bearer <key>".',
      inputSchema: { email: z.string().max(254).describe("The user's email address.") },
      outputSchema: { status: z.literal('sent'), email: z.string(), expires_at: z.string(), detail: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ email }) => {
      try {
        const answer = await requestFreeKey(ctx, email, caller.ip);
        return { content: [{ type: 'text', text: answer.detail }], structuredContent: { ...answer } };
      } catch (err) {
        return errorResult(err, ctx);
      }
    },
  );
  return server;
}

function lookupAnnotations(spec: ToolSpec) {
  // validate needs no network; every other tool asks the outside world (DNS, RDAP, DNSBLs).
  return { readOnlyHint: true, idempotentHint: true, openWorldHint: spec.target !== 'record' };
}

/** The text an agent reads: summary first, then the report, where it came from, and the allowance. */
export function envelopeText(e: LookupEnvelope): string {
  const usage = `${e.usage.remaining_today} of ${e.usage.limit} ${e.usage.tier} lookups left today${e.cache === 'cached' ? ' (this answer came from the cache and was free)' : ''}.`;
  return [e.summary, e.report, `Source: ${e.source}`, usage].filter((s) => s && s.trim() !== '').join('\n\n');
}

function envelopeResult(e: LookupEnvelope): CallToolResult {
  return { content: [{ type: 'text', text: envelopeText(e) }], structuredContent: { ...e } };
}

function textError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * ApiErrors become tool errors the agent can read and act on: the detail, then the problem body as
 * JSON. Not as structuredContent: clients validate that against the tool's output schema even on
 * errors.
 */
function errorResult(err: unknown, ctx: LookupContext): CallToolResult {
  if (err instanceof ApiError) {
    const detail = typeof err.detail === 'string' ? err.detail : err.message;
    return { content: [{ type: 'text', text: detail }, { type: 'text', text: JSON.stringify(problemBody(err)) }], isError: true };
  }
  ctx.log.error({ err }, 'MCP tool failed');
  return textError('The tool failed on our side; retry in a moment.');
}
