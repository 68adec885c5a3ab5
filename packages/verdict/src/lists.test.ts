import { describe, expect, it } from 'vitest';
import { isDisposableDomain, isFreeDomain } from './domain-lists.ts';
import { checkLists } from './lists.ts';
import { roleOf } from './roles.ts';

describe('roleOf', () => {
  const cases: [string, string | null][] = [
    ['sales', 'sales'],
    ['Sales', 'sales'],
    ['info', 'info'],
    ['no-reply', 'noreply'],
    ['no_reply', 'noreply'],
    ['noreply', 'noreply'],
    ['do-not-reply', 'donotreply'],
    ['sales+leads', 'sales'],
    ['sales.team', 'sales'],
    ['info-uk', 'info'],
    ['support.emea', 'support'],
    ['sales2024', 'sales'],
    ['postmaster', 'postmaster'],
    ['abuse', 'abuse'],
    ['hr', 'hr'],
    ['customer.service', 'customerservice'],
    ['careers.de', 'careers'],
    ['john.smith', null],
    ['john.sales', null],
    ['marketing.anna', null],
    ['salesforce', null],
    ['steve.jobs', null],
    ['helloworld', null],
  ];
  it.each(cases)('%s -> %s', (local, role) => expect(roleOf(local)).toBe(role));
});

describe('disposable domains', () => {
  const cases: [string, boolean][] = [
    ['mailinator.com', true],
    ['x.mailinator.com', true],
    ['a.b.mailinator.com', true],
    ['MAILINATOR.COM', true],
    ['yopmail.com', true],
    ['guerrillamail.com', true],
    ['gmail.com', false],
    ['mailinator.com.example.org', false],
    ['mailinatorx.example', false],
    ['example.com', false],
  ];
  it.each(cases)('%s -> %s', (domain, expected) => expect(isDisposableDomain(domain)).toBe(expected));
});

describe('free-mail domains', () => {
  const cases: [string, boolean][] = [
    ['gmail.com', true],
    ['yahoo.co.uk', true],
    ['outlook.com', true],
    ['gmx.de', true],
    ['proton.me', true],
    ['tutanota.com', true],
    ['mail.ru', true],
    ['qq.com', true],
    ['mail.gmail.com', false],
    ['mailinator.com', false],
    ['example.com', false],
    ['facebook.com', false],
    ['acme-corp.com', false],
  ];
  it.each(cases)('%s -> %s', (domain, expected) => expect(isFreeDomain(domain)).toBe(expected));
});

describe('checkLists', () => {
  it('combines the signals for one address', () => {
    expect(checkLists({ local: 'info', domain: 'gmial.com' })).toEqual({
      disposable: true,
      free: false,
      role: true,
      roleWord: 'info',
      gibberish: false,
      didYouMean: 'info@gmail.com',
    });
    expect(checkLists({ local: 'xk7qpz9w', domain: 'yahoo.com' })).toMatchObject({ free: true, gibberish: true, role: false, didYouMean: null });
  });
});
