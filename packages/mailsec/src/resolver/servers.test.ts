import { describe, expect, it } from 'vitest';
import { parseServer, parseServers, serversFromEnv } from './servers.ts';

describe('DNS server lists', () => {
  it('reads host and host:port entries, IPv4 and IPv6', () => {
    expect(parseServers('127.0.0.1:5353, 127.0.0.2,[::1]:5300,::1')).toEqual([
      { host: '127.0.0.1', port: 5353, family: 4 },
      { host: '127.0.0.2', port: 53, family: 4 },
      { host: '::1', port: 5300, family: 6 },
      { host: '::1', port: 53, family: 6 },
    ]);
  });

  it('rejects names, bad ports and empty lists', () => {
    expect(() => parseServer('dns.example:53')).toThrow(/not an IP address/);
    expect(() => parseServer('127.0.0.1:70000')).toThrow(/bad port/);
    expect(() => parseServers(' , ')).toThrow(/no DNS servers/);
  });

  it('takes DNS_SERVERS from the environment', () => {
    expect(serversFromEnv({ DNS_SERVERS: '127.0.0.9:53' })).toEqual([{ host: '127.0.0.9', port: 53, family: 4 }]);
  });
});
