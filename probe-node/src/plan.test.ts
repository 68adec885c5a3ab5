import { describe, expect, it } from 'vitest';
import { probeConfigSchema } from './config.ts';
import { ProviderHealth } from './health.ts';
import { nodeIdFrom } from './node-id.ts';
import { chooseSourceIp, effectiveTimeouts, isTooManyRecipients, parseMxHost, unreachableOutcome } from './plan.ts';

const config = probeConfigSchema.parse({});

describe('effectiveTimeouts', () => {
  it('takes design defaults, request overrides, and caps them', () => {
    expect(effectiveTimeouts(undefined, config)).toEqual({ connectMs: 10_000, greetingMs: 15_000, commandMs: 15_000, sessionMs: 60_000 });
    expect(effectiveTimeouts({ commandMs: 200, sessionMs: 10_000_000 }, config)).toEqual({ connectMs: 10_000, greetingMs: 15_000, commandMs: 200, sessionMs: 180_000 });
  });

  it('refuses a default above its cap at start', () => {
    expect(probeConfigSchema.safeParse({ PROBE_COMMAND_TIMEOUT_MS: '90000' }).success).toBe(false);
  });
});

describe('chooseSourceIp', () => {
  const ours = ['127.0.0.50', '127.0.0.51', '127.0.0.52'];
  it('honours a requested address of ours and refuses others', () => {
    expect(chooseSourceIp('127.0.0.51', ours, 'a.test')).toEqual({ ok: true, ip: '127.0.0.51' });
    expect(chooseSourceIp('10.0.0.1', ours, 'a.test')).toMatchObject({ ok: false });
  });
  it('without a request, pins each domain to one address (greylisting keys on the client /24)', () => {
    const a = chooseSourceIp(null, ours, 'acme.test');
    expect(chooseSourceIp(undefined, ours, 'ACME.test')).toEqual(a);
    expect(ours).toContain((a as { ip: string }).ip);
    expect(chooseSourceIp(null, [], 'acme.test')).toEqual({ ok: true, ip: undefined });
  });
});

describe('small rules', () => {
  it('recognises "too many recipients"', () => {
    expect(isTooManyRecipients(452, '4.5.3', 'Too many recipients')).toBe(true);
    expect(isTooManyRecipients(452, null, 'Too many recipients received this hour')).toBe(true);
    expect(isTooManyRecipients(452, '4.2.2', 'Mailbox full')).toBe(false);
    expect(isTooManyRecipients(250, null, 'OK')).toBe(false);
  });

  it('calls an unreachable MX set timeout only when every connect attempt timed out', () => {
    const t = { ip: '192.0.2.1', error: 'timeout after 10000 ms' };
    expect(unreachableOutcome([t, t], false)).toBe('timeout');
    expect(unreachableOutcome([t, { ip: '192.0.2.2', error: 'connection refused' }], false)).toBe('connect_failed');
    expect(unreachableOutcome([t, { ip: null, error: 'host name has no address' }], false)).toBe('connect_failed');
    expect(unreachableOutcome([], false)).toBe('connect_failed');
    expect(unreachableOutcome([], true)).toBe('timeout');
  });

  it('parses MX hosts and IP literals', () => {
    expect(parseMxHost('MX1.Acme.test.')).toEqual({ kind: 'name', name: 'mx1.acme.test' });
    expect(parseMxHost('[127.0.1.10]')).toEqual({ kind: 'ip', ip: '127.0.1.10' });
    expect(parseMxHost('::1')).toEqual({ kind: 'ip', ip: '::1' });
    expect(parseMxHost('bad host\r\n')).toBeNull();
  });

  it('makes node ids that are one NATS subject token', () => {
    expect(nodeIdFrom('fixed', 'x')).toBe('fixed');
    expect(nodeIdFrom(undefined, 'Probe.EU-1.example.com', () => 'abc123')).toBe('probe-eu-1-example-com-abc123');
    expect(nodeIdFrom(undefined, '...', () => 'abc123')).toBe('probe-abc123');
  });
});

describe('ProviderHealth', () => {
  it('counts throttled and blocked replies per provider within the window only', () => {
    let t = 1_000_000;
    const h = new ProviderHealth(60_000, 2, () => t);
    h.record('google', 'throttled');
    h.record('google', 'throttled');
    h.record('google', 'blocked');
    t += 30_000;
    h.record('yahoo', 'blocked');
    expect(h.snapshot()).toEqual({ google: { throttled: 2, blocked: 1 }, yahoo: { throttled: 0, blocked: 1 } });
    t += 35_000;
    expect(h.snapshot()).toEqual({ yahoo: { throttled: 0, blocked: 1 } });
  });

  it('forgets the least recently seen provider beyond its bound', () => {
    const h = new ProviderHealth(60_000, 2, () => 0);
    h.record('a', 'blocked');
    h.record('b', 'blocked');
    h.record('a', 'blocked');
    h.record('c', 'blocked');
    expect(Object.keys(h.snapshot()).sort()).toEqual(['a', 'c']);
  });
});
