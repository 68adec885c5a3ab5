// createEngine: the one entry point lookup and portfolio-scanner use. run() validates the target
// inside each tool (TargetError before any DNS query) and dispatches by tool name.
import { blacklistCheck } from './blacklist-check.ts';
import { createToolContext, type ToolContext } from './context.ts';
import { dkimDiscover } from './dkim-discover.ts';
import { dmarcCheck } from './dmarc-check.ts';
import { dnsLookup } from './dns-lookup.ts';
import { emailSecurityCheck } from './email-security.ts';
import { spfAnalyze } from './spf-analyze.ts';
import { TOOL_NAMES, TargetError, type Engine, type EngineOptions, type ToolInput, type ToolName, type ToolOutput } from './types.ts';
import { validateTool } from './validate.ts';
import { whoisLookup } from './whois-lookup.ts';

export type ToolFunction = (ctx: ToolContext, input: ToolInput) => Promise<ToolOutput>;

export const TOOLS: Readonly<Record<ToolName, ToolFunction>> = {
  dns_lookup: dnsLookup,
  email_security_check: emailSecurityCheck,
  dkim_discover: dkimDiscover,
  whois_lookup: whoisLookup,
  spf_analyze: spfAnalyze,
  dmarc_check: dmarcCheck,
  blacklist_check: blacklistCheck,
  validate: validateTool,
};

export function createEngine(opts: EngineOptions): Engine {
  const ctx = createToolContext(opts);
  let closed = false;
  return {
    ...(ctx.sanity ? { resolverSanity: ctx.sanity } : {}),
    async run(tool: ToolName, input: ToolInput): Promise<ToolOutput> {
      if (closed) throw new Error('engine closed');
      if (!(TOOL_NAMES as readonly string[]).includes(tool)) throw new TargetError(`unknown tool "${String(tool)}"`);
      return TOOLS[tool](ctx, input);
    },
    async close(): Promise<void> {
      closed = true;
      ctx.close();
    },
  };
}
