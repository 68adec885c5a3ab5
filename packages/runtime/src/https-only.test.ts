import { describe, expect, it } from 'vitest';
import { transportVerdict, type TransportFacts, type TransportVerdict } from './https-only.ts';

// The HTTPS-only decision as a table: TLS (or a trusted proxy's X-Forwarded-Proto) is served,
// a request straight from this machine is local use, everything else is refused.
const cases: Array<[string, TransportFacts, TransportVerdict]> = [
  ['TLS from anywhere', { secure: true, peerLoopback: false, forwarded: false }, 'https'],
  ['trusted proxy says https', { secure: true, peerLoopback: false, forwarded: true }, 'https'],
  ['trusted loopback proxy says https', { secure: true, peerLoopback: true, forwarded: true }, 'https'],
  ['plain HTTP straight from this machine', { secure: false, peerLoopback: true, forwarded: false }, 'local'],
  ['plain HTTP from another machine', { secure: false, peerLoopback: false, forwarded: false }, 'refuse'],
  ['proxy says http (trusted or not)', { secure: false, peerLoopback: false, forwarded: true }, 'refuse'],
  ['loopback proxy forwarding (untrusted header ignored)', { secure: false, peerLoopback: true, forwarded: true }, 'refuse'],
];

describe('transportVerdict', () => {
  it.each(cases)('%s', (_name, facts, verdict) => {
    expect(transportVerdict(facts)).toBe(verdict);
  });
});
