import { describe, expect, it } from 'vitest';
import { CATCH_ALL_SKIP_DOMAINS, PROVIDERS } from './data/providers.ts';
import { providerForMx, registrableDomain, shouldProbeCatchAll } from './provider.ts';

describe('providerForMx', () => {
  const cases: [string, string][] = [
    ['gmail-smtp-in.l.google.com', 'google'],
    ['alt1.aspmx.l.google.com', 'google'],
    ['aspmx2.googlemail.com', 'google'],
    ['smtp.google.com', 'google'],
    ['hotmail-com.olc.protection.outlook.com', 'microsoft_consumer'],
    ['outlook-com.olc.protection.outlook.com', 'microsoft_consumer'],
    ['contoso-com.mail.protection.outlook.com', 'microsoft_365'],
    ['contoso-com.l-v1.mx.microsoft', 'microsoft_365'],
    ['mta5.am0.yahoodns.net', 'yahoo'],
    ['mx-aol.mail.gm0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mx.zoho.eu', 'zoho'],
    ['mail.protonmail.ch', 'proton'],
    ['in1-smtp.messagingengine.com', 'fastmail'],
    ['mx00.gmx.net', 'gmx_webde'],
    ['mx-ha03.web.de', 'gmx_webde'],
    ['mxs.mail.ru', 'mailru'],
    ['mx.yandex.net', 'yandex'],
    ['eu-smtp-inbound-1.mimecast.com', 'mimecast'],
    ['mx0a-001b2d01.pphosted.com', 'proofpoint'],
    ['mx1-us1.ppe-hosted.com', 'proofpoint'],
    ['d123456a.ess.barracudanetworks.com', 'barracuda'],
    ['mx1.hc1234-56.iphmx.com', 'cisco'],
    ['cluster1.eu.messagelabs.com', 'broadcom'],
    ['in.tmes.trendmicro.eu', 'trendmicro'],
    ['mx-01-eu-west-1.prod.hydra.sophos.com', 'sophos'],
    ['cluster-a.mailcontrol.com', 'forcepoint'],
    ['mx1.mail.ovh.net', 'ovh'],
    ['mx00.ionos.de', 'ionos'],
    ['mx01.kundenserver.de', 'ionos'],
    ['ALT1.ASPMX.L.GOOGLE.COM.', 'google'],
  ];
  it.each(cases)('%s -> %s', (mx, id) => expect(providerForMx(mx).id).toBe(id));

  it('falls back to a self-hosted row keyed by the registrable domain', () => {
    const p = providerForMx('mx1.mail.example.co.uk');
    expect(p).toMatchObject({ id: 'example.co.uk', kind: 'self_hosted', politeness: { maxConcurrentSessions: 5, newSessionsPerMinute: 60, maxRcptsPerSession: 20 } });
    expect(providerForMx('192.0.2.10').id).toBe('192.0.2.10');
    // A host that merely contains a provider's name is not that provider.
    expect(providerForMx('mx.notgoogle.com').id).toBe('notgoogle.com');
  });

  it('carries the reference politeness for the big providers', () => {
    expect(providerForMx('aspmx.l.google.com').politeness).toEqual({ maxConcurrentSessions: 5, newSessionsPerMinute: 10, maxRcptsPerSession: 20 });
    expect(providerForMx('x.mail.protection.outlook.com').politeness).toEqual({ maxConcurrentSessions: 2, newSessionsPerMinute: 10, maxRcptsPerSession: 3 });
    expect(providerForMx('mta6.am0.yahoodns.net').politeness.newSessionsPerMinute).toBe(25);
    expect(providerForMx('mta6.am0.yahoodns.net').quirks.acceptsAllAtRcpt).toBe(true);
  });

  it('has unique ids, a kind and at least one pattern per row', () => {
    expect(new Set(PROVIDERS.map((p) => p.id)).size).toBe(PROVIDERS.length);
    for (const p of PROVIDERS) expect(p.patterns.length, p.id).toBeGreaterThan(0);
  });

  it('has one vendor name per row, unique case-insensitively, that is no other row\'s id', () => {
    const names = PROVIDERS.map((p) => p.vendor.toLowerCase());
    expect(new Set(names).size).toBe(PROVIDERS.length);
    for (const p of PROVIDERS) {
      expect(p.vendor.trim(), p.id).toBe(p.vendor);
      expect(PROVIDERS.filter((q) => q.id !== p.id).map((q) => q.id), p.id).not.toContain(p.vendor.toLowerCase());
    }
    expect(providerForMx('mx.acme.example').vendor).toBe('acme.example');
  });
});

describe('registrableDomain', () => {
  it.each([
    ['mx1.mail.example.co.uk', 'example.co.uk'],
    ['aspmx.l.google.com', 'google.com'],
    ['Mail.Example.COM.', 'example.com'],
  ])('%s -> %s', (host, expected) => expect(registrableDomain(host)).toBe(expected));
});

describe('shouldProbeCatchAll', () => {
  const google = providerForMx('aspmx.l.google.com');
  const cases: [string, string, boolean][] = [
    ['gmail.com', 'aspmx.l.google.com', false],
    ['googlemail.com', 'aspmx.l.google.com', false],
    ['acme.com', 'aspmx.l.google.com', true],
    ['hotmail.fr', 'hotmail-com.olc.protection.outlook.com', false],
    ['acme.com', 'acme-com.mail.protection.outlook.com', true],
    ['yahoo.co.uk', 'mta7.am0.yahoodns.net', false],
    ['icloud.com', 'mx01.mail.icloud.com', false],
    ['acme.com', 'mx.acme.com', true],
  ];
  it.each(cases)('%s via %s -> %s', (domain, mx, expected) => expect(shouldProbeCatchAll(domain, providerForMx(mx))).toBe(expected));
  it('skips every listed consumer domain whatever the MX', () => {
    for (const d of CATCH_ALL_SKIP_DOMAINS) expect(shouldProbeCatchAll(d, google), d).toBe(false);
  });
});
