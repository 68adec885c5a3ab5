import { TargetError, type Engine, type ToolInput, type ToolName, type ToolOutput } from '../engine.ts';

// A stand-in for the mailsec engine in tests of the HTTP and MCP layers: answers every tool with a
// small canned output and records every call, so a test can assert that a refused input never
// reached the engine. `engine-refuses.test` makes it throw TargetError; `explode.test` a plain error.

export interface FakeEngine extends Engine {
  calls: { tool: ToolName; input: ToolInput }[];
}

export function createFakeEngine(): FakeEngine {
  const calls: FakeEngine['calls'] = [];
  return {
    calls,
    async run(tool, input) {
      calls.push({ tool, input });
      if (input.target === 'engine-refuses.test') throw new TargetError('The engine refuses this target.');
      if (input.target === 'explode.test') throw new Error('resolver exploded');
      return cannedOutput(tool, input);
    },
    async close() {},
  };
}

export function cannedOutput(tool: ToolName, input: ToolInput): ToolOutput {
  const domain = input.target ?? '';
  const full = input.detail === 'full';
  return {
    summary: tool === 'validate' ? `The record "${input.record}" is valid (grade A).` : `${tool} of ${domain}: all good${full ? ' (full detail)' : ''}.`,
    result: { 'Email Gateway': 'Self-hosted', SPF: 'v=spf1 mx -all', 'DMARC Policy (p)': 'reject' },
    data: {
      meta: { domain, email_gateway: 'Self-hosted', dnssec: 'unsigned', timestamp: new Date().toISOString() },
      records: { A: ['192.0.2.1'], MX: [{ priority: 10, exchange: `mx1.${domain}` }], ...(full ? { TXT: ['v=spf1 mx -all', 'google-site-verification=x'] } : {}) },
    },
    report: `${tool} report for ${domain || 'the record'}`,
  };
}
