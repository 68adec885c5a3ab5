import { describe, expect, it } from 'vitest';
import { emailGateway } from '@dv/mailsec';
import { PROVIDERS } from '@dv/verdict';
import { currentGatewayValue, GATEWAY_VALUES, gatewayFilterValue, gatewayValue } from './gateway-values.ts';

const gw = (...hosts: string[]) => emailGateway(hosts.map((exchange, i) => ({ type: 'MX' as const, name: 'acme.example', priority: 10 * (i + 1), exchange, ttl: 300 })));

describe('gatewayValue', () => {
  it.each([
    ['acme.example', ['alt1.aspmx.l.google.com'], 'Google'],
    ['acme.example', ['acme-example.mail.protection.outlook.com'], 'Microsoft 365'],
    ['acme.example', ['eu-smtp-inbound-1.mimecast.com', 'alt1.aspmx.l.google.com'], 'Mimecast'],
    ['acme.example', ['mx1.acme.example'], 'Self-hosted'],
    ['shop.acme.co.uk', ['mail.acme.co.uk'], 'Self-hosted'],
    ['acme.example', ['mx.mailhost.example'], 'mailhost.example'],
    ['acme.example', ['.'], 'Null MX'],
  ])('%s via %j -> %s', (domain, hosts, value) => expect(gatewayValue(domain, gw(...hosts))).toBe(value));

  it('no MX records: null', () => expect(gatewayValue('acme.example', gw())).toBeNull());
});

describe('gatewayFilterValue', () => {
  it.each([
    ['google', 'Google'],
    ['GOOGLE', 'Google'],
    [' Google ', 'Google'],
    ['Google (Gmail / Workspace)', 'Google'],
    ['microsoft_365', 'Microsoft 365'],
    ['microsoft 365', 'Microsoft 365'],
    ['self_hosted', 'Self-hosted'],
    ['SELF-HOSTED', 'Self-hosted'],
    ['null_mx', 'Null MX'],
    ['none (null MX)', 'Null MX'],
    ['none', null],
    ['None', null],
    ['MailHost.Example.', 'mailhost.example'],
  ])('%j -> %j', (input, stored) => expect(gatewayFilterValue(input)).toBe(stored));

  it.each(['Gogle', 'Google Workspace', 'microsoft', 'a b.example', '-x.example', ''])('%j is no value', (input) => expect(gatewayFilterValue(input)).toBeUndefined());

  it('every value and id of the list selects that value', () => {
    expect(GATEWAY_VALUES.length).toBe(PROVIDERS.length + 2);
    for (const g of GATEWAY_VALUES) for (const k of [g.value, g.id, g.value.toUpperCase()]) expect(gatewayFilterValue(k), k).toBe(g.value);
  });
});

describe('currentGatewayValue (values stored before the vocabulary)', () => {
  it.each([
    ['acme.example', 'Google (Gmail / Workspace)', 'Google'],
    ['acme.example', 'Microsoft 365 (Exchange Online)', 'Microsoft 365'],
    ['acme.example', 'none (null MX)', 'Null MX'],
    ['acme.example', 'acme.example', 'Self-hosted'],
    ['acme.example', 'mailhost.example', 'mailhost.example'],
    ['acme.example', 'Google', 'Google'],
    ['acme.example', null, null],
  ])('%s: %j -> %j', (domain, stored, value) => expect(currentGatewayValue(domain, stored)).toBe(value));
});
