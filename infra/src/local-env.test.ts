import { describe, expect, it } from 'vitest';
import { localServiceEnv, publicBaseUrls } from './local-env.ts';

const PORTS = { gateway: 18080, lookup: 18081, 'portfolio-scanner': 18082, scheduler: 19464, 'probe-node': 19465 } as const;
const CHANNELS = { smtpRelayUrl: 'smtp://127.0.0.1:2525', caBundleFile: '/x/.local/ca/ca.crt' };

describe('the launcher\'s environment for each service', () => {
  it('gives each service its own base URL on the port it was given; the scheduler links to the gateway', () => {
    expect(publicBaseUrls(PORTS, {})).toEqual({
      gateway: 'http://127.0.0.1:18080',
      scheduler: 'http://127.0.0.1:18080',
      lookup: 'http://127.0.0.1:18081',
      'portfolio-scanner': 'http://127.0.0.1:18082',
    });
    expect(localServiceEnv('probe-node', PORTS, CHANNELS, {}).PUBLIC_BASE_URL).toBeUndefined();
  });

  it('lets the user name the public addresses', () => {
    const user = { PUBLIC_BASE_URL: 'https://api.example.test', LOOKUP_PUBLIC_BASE_URL: 'https://lookup.example.test' };
    expect(publicBaseUrls(PORTS, user)).toMatchObject({ gateway: 'https://api.example.test', scheduler: 'https://api.example.test', lookup: 'https://lookup.example.test', 'portfolio-scanner': 'http://127.0.0.1:18082' });
  });

  it('wires mail to the catcher and webhooks to the local receiver unless the user set otherwise', () => {
    expect(localServiceEnv('scheduler', PORTS, CHANNELS, {})).toEqual({
      PUBLIC_BASE_URL: 'http://127.0.0.1:18080',
      SMTP_RELAY_URL: 'smtp://127.0.0.1:2525',
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
      NODE_EXTRA_CA_CERTS: '/x/.local/ca/ca.crt',
    });
    const own = localServiceEnv('lookup', PORTS, CHANNELS, { SMTP_RELAY_URL: 'smtp://relay.example.test:587', WEBHOOK_ALLOW_HTTP_LOOPBACK: 'false' });
    expect(own.SMTP_RELAY_URL).toBeUndefined();
    expect(own.WEBHOOK_ALLOW_HTTP_LOOPBACK).toBeUndefined();
  });
});
