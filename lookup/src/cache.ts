import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ToolInput, ToolName, ToolOutput } from './engine.ts';

// The response cache: one Redis entry per (tool, target, detail), holding the engine's output
// without the per-caller envelope fields. Shared by every replica, so a repeated lookup anywhere
// is answered `cached` and costs the client nothing.

export class ResultCache {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly ttlSeconds: number;

  constructor(opts: { redis: Redis; keyPrefix: string; ttlSeconds: number }) {
    this.redis = opts.redis;
    this.prefix = `${opts.keyPrefix}cache:`;
    this.ttlSeconds = opts.ttlSeconds;
  }

  key(tool: ToolName, input: ToolInput): string {
    // validate's record is free text of any length: hash it so keys stay short and opaque.
    const subject = tool === 'validate' ? createHash('sha256').update(input.record ?? '').digest('hex') : (input.target ?? '');
    return `${this.prefix}${tool}:${input.detail ?? 'std'}:${subject}`;
  }

  async get(tool: ToolName, input: ToolInput): Promise<ToolOutput | undefined> {
    if (this.ttlSeconds === 0) return undefined;
    const raw = await this.redis.get(this.key(tool, input));
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as ToolOutput;
    } catch {
      return undefined; // a corrupt entry is a miss; the live answer overwrites it
    }
  }

  async set(tool: ToolName, input: ToolInput, output: ToolOutput): Promise<void> {
    if (this.ttlSeconds === 0) return;
    await this.redis.set(this.key(tool, input), JSON.stringify(output), 'EX', this.ttlSeconds);
  }
}
