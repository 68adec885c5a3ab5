import { describe, expect, it } from 'vitest';
import { buildJobCompletedEvent, countDecisions } from './event.ts';
import { eventDoc, jobDoc, result } from './testing/fixtures.ts';

describe('buildJobCompletedEvent', () => {
  it('shapes a list event with counts, decisions and an absolute results_url', () => {
    const job = jobDoc({ _id: 'job_A1', account_id: 'acc_1' });
    const body = buildJobCompletedEvent(job, eventDoc(job), { publicBaseUrl: 'https://api.example.com/', decisions: { send: 2, review: 1, drop: 1 } });
    expect(body).toEqual({
      id: 'evt_A1',
      type: 'job.completed',
      created_at: '2026-11-22T01:02:03.456Z',
      data: {
        job_id: 'job_A1',
        kind: 'list',
        mode: 'live',
        status: 'completed',
        label: 'october leads',
        total: 4,
        done: 4,
        counts: { deliverable: 2, undeliverable: 1, risky: 1, unknown: 0 },
        decisions: { send: 2, review: 1, drop: 1 },
        credits_charged: 4,
        credits_refunded: 0,
        completed_at: '2026-11-22T01:02:03.400Z',
        results_url: 'https://api.example.com/v1/jobs/job_A1/results',
      },
    });
    // Key order is part of the documented shape.
    expect(Object.keys(body.data)).toEqual(['job_id', 'kind', 'mode', 'status', 'label', 'total', 'done', 'counts', 'decisions', 'credits_charged', 'credits_refunded', 'completed_at', 'results_url']);
  });

  it('carries a single verify result inline (from the event) and derives its decision', () => {
    const job = jobDoc({ _id: 'job_S1', account_id: 'acc_1', kind: 'single', label: null, total: 1, done: 1, counts: { deliverable: 0, undeliverable: 0, risky: 1, unknown: 0 } });
    const r = result('ada@example.com', 'risky', 'review');
    const body = buildJobCompletedEvent(job, eventDoc(job, { data: { result: r } }), { publicBaseUrl: 'https://api.example.com' });
    expect(body.data.result).toEqual(r);
    expect(body.data.results_url).toBeUndefined();
    expect(body.data.decisions).toEqual({ send: 0, review: 1, drop: 0 });
  });

  it('prefers decisions stored on the event; omits them when unknown', () => {
    const job = jobDoc({ _id: 'job_A2', account_id: 'acc_1' });
    const stored = buildJobCompletedEvent(job, eventDoc(job, { data: { decisions: { send: 9, review: 0, drop: 0 } } }), { publicBaseUrl: 'https://x', decisions: { send: 1, review: 1, drop: 1 } });
    expect(stored.data.decisions).toEqual({ send: 9, review: 0, drop: 0 });
    const none = buildJobCompletedEvent(job, eventDoc(job), { publicBaseUrl: 'https://x' });
    expect('decisions' in none.data).toBe(false);
  });

  it('is deterministic: a retry sends the same bytes', () => {
    const job = jobDoc({ _id: 'job_A3', account_id: 'acc_1' });
    const a = JSON.stringify(buildJobCompletedEvent(job, eventDoc(job), { publicBaseUrl: 'https://x' }));
    const b = JSON.stringify(buildJobCompletedEvent(structuredClone(job), eventDoc(job), { publicBaseUrl: 'https://x' }));
    expect(a).toBe(b);
  });
});

describe('countDecisions', () => {
  const cases: Array<[string, Array<'send' | 'review' | 'drop' | null>, Record<string, number>]> = [
    ['empty', [], { send: 0, review: 0, drop: 0 }],
    ['mixed', ['send', 'send', 'drop', 'review', null], { send: 2, review: 1, drop: 1 }],
  ];
  it.each(cases)('%s', (_n, actions, want) => {
    expect(countDecisions(actions.map((a, i) => (a ? result(`u${i}@example.com`, 'deliverable', a) : null)))).toEqual(want);
  });
});
