import { describe, expect, it } from 'vitest';
import { JetStreamPublishError, type PublishAck } from '@dv/runtime';
import { publishWithRetry } from './publish-retry.ts';

// A pure unit: the publisher is a script of outcomes, one per try.
function scripted(outcomes: Array<'ok' | 'fail'>) {
  const tries: Array<{ msgID?: string; at: number }> = [];
  const t0 = performance.now();
  return {
    tries,
    publish: (_subject: string, _data: string | Uint8Array, opts?: { msgID?: string }): Promise<PublishAck> => {
      tries.push({ msgID: opts?.msgID, at: performance.now() - t0 });
      return outcomes[tries.length - 1] === 'ok' ? Promise.resolve({ stream: 'VERIFY', seq: tries.length, duplicate: false }) : Promise.reject(new JetStreamPublishError('no ack', 'TimeoutError'));
    },
  };
}

describe('publishWithRetry', () => {
  it('publishes again after a failure, with the same message id and a growing delay', async () => {
    const p = scripted(['fail', 'fail', 'ok']);
    const ack = await publishWithRetry(p, 's', 'd', 'job_x:0', { attempts: 3, baseDelayMs: 20, windowMs: 5_000 });
    expect(ack.seq).toBe(3);
    expect(p.tries.map((t) => t.msgID)).toEqual(['job_x:0', 'job_x:0', 'job_x:0']);
    expect(p.tries[1]!.at - p.tries[0]!.at).toBeGreaterThanOrEqual(18);
    expect(p.tries[2]!.at - p.tries[1]!.at).toBeGreaterThanOrEqual(38);
  });

  it('gives up with the last error after its tries', async () => {
    const p = scripted(['fail', 'fail', 'fail', 'ok']);
    await expect(publishWithRetry(p, 's', 'd', 'm', { attempts: 3, baseDelayMs: 1, windowMs: 5_000 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(p.tries).toHaveLength(3);
  });

  it('starts no try past its window', async () => {
    const p = scripted(['fail', 'ok']);
    await expect(publishWithRetry(p, 's', 'd', 'm', { attempts: 5, baseDelayMs: 100, windowMs: 50 })).rejects.toThrow('no ack');
    expect(p.tries).toHaveLength(1);
  });
});
