import { describe, expect, it } from 'vitest';
import { parseRecords } from '../load.ts';
import { RR_TYPE } from '@dv/net';
import { Zone } from './zone.ts';

describe('Zone', () => {
  it('stops chasing a CNAME loop instead of spinning', () => {
    const zone = new Zone(
      parseRecords([
        { name: 'a.test', type: 'CNAME', target: 'b.test' },
        { name: 'b.test', type: 'CNAME', target: 'a.test' },
      ]),
    );
    const answer = zone.lookup('a.test', RR_TYPE.A);
    expect(answer.rcode).toBe('NOERROR');
    expect(answer.answers.length).toBeGreaterThan(1);
    expect(answer.answers.length).toBeLessThanOrEqual(9);
  });

  it('answers a CNAME query with the CNAME itself, not its target', () => {
    const zone = new Zone(
      parseRecords([
        { name: 'www.test', type: 'CNAME', target: 'web.test' },
        { name: 'web.test', type: 'A', address: '127.0.0.9' },
      ]),
    );
    expect(zone.lookup('www.test', RR_TYPE.CNAME).answers.map((r) => r.type)).toEqual(['CNAME']);
  });

  it('answers NXDOMAIN without an SOA when no zone encloses the name', () => {
    const zone = new Zone([]);
    expect(zone.lookup('nothing.test', RR_TYPE.A)).toEqual({ rcode: 'NXDOMAIN', answers: [], authority: [], authenticated: false });
  });
});
