import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@dv/runtime';
import { lookupConfigSchema } from './config.ts';

describe('lookup config', () => {
  it('has working defaults', () => {
    const c = loadConfig('lookup', lookupConfigSchema, {});
    expect(c).toMatchObject({ PORT: 8081, ANONYMOUS_LOOKUPS_PER_DAY: 10, FREE_KEY_LOOKUPS_PER_DAY: 100, CACHE_TTL_SECONDS: 300, TRUSTED_PROXIES: [], DNSBL_ZONES: [], ALLOW_PRIVATE_TARGETS: false });
    expect(c.SMTP_RELAY_URL).toBeUndefined();
  });

  it('parses lists and strips trailing slashes from URLs', () => {
    const c = loadConfig('lookup', lookupConfigSchema, { TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8', PUBLIC_BASE_URL: 'https://lookup.example/', DNSBL_ZONES: 'zen.dnsbl.test=zen.spamhaus.org' });
    expect(c.TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8']);
    expect(c.PUBLIC_BASE_URL).toBe('https://lookup.example');
    expect(c.DNSBL_ZONES).toEqual(['zen.dnsbl.test=zen.spamhaus.org']);
  });

  it('fails fast listing every bad variable', () => {
    try {
      loadConfig('lookup', lookupConfigSchema, { TRUSTED_PROXIES: '10.0.0.0/33,proxy.local', SMTP_RELAY_URL: 'http://relay', DNSBL_ZONES: 'x.test=nope.example', ANONYMOUS_LOOKUPS_PER_DAY: '0' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['TRUSTED_PROXIES', 'SMTP_RELAY_URL', 'DNSBL_ZONES', 'ANONYMOUS_LOOKUPS_PER_DAY']) expect(problems).toContain(name);
    }
  });
});
