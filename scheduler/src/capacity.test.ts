// A probe node's capacity is never overshot: batches of many domains that become ready together
// each see a free session on the node, and the one that takes it counts it before it awaits
// anything, so the others wait instead of sending a session the node would answer `busy`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS, type ProbeHeartbeat, type ProbeSessionReply, type ProbeSessionRequest } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import { startHarness, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from './testing/jobs.ts';
import { startSchedulerWorld } from './testing/world.ts';

let t: Harness;
let world: WorldHandle;

beforeAll(async () => {
  t = await startHarness('capacity');
  world = await startSchedulerWorld();
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

const CAPACITY = 2;
/** Domains of the scheduler's world with an MX host (or an address) each: one batch each. */
const DOMAINS = ['acme.test', 'catchall.test', 'greylist.test', 'manyrcpt.test', 'starttls.test', 'harvest.test', 'slow.test', 'polite.test'];

describe('probe node capacity', () => {
  it(`sessions in flight on a node never exceed the capacity its heartbeat announces (${CAPACITY})`, async () => {
    // A node that answers every session after 150 ms (every address accepted, the catch-all probe
    // refused) and counts the sessions it holds at once, as a real node does before saying busy.
    const nodeId = 'small-node';
    let inFlight = 0;
    let most = 0;
    let sessions = 0;
    const sub = t.nc.subscribe(SUBJECTS.probeSession(nodeId), {
      callback: (_err, msg) => {
        const req = msg.json<ProbeSessionRequest>();
        sessions++;
        most = Math.max(most, ++inFlight);
        setTimeout(() => {
          inFlight--;
          const ok = { code: 250, enhanced: '2.1.5', text: 'OK' };
          const reply: ProbeSessionReply = {
            session_id: req.session_id, node_id: nodeId, outcome: 'completed', mx_used: req.mx_hosts[0]!, source_ip: '127.0.0.1', tls: false,
            catch_all: req.catch_all_probe ? { address: `zz@${req.domain}`, reply: { code: 550, enhanced: '5.1.1', text: 'no such user' } } : null,
            results: req.addresses.map((address) => ({ address, reply: ok, ms: 1, stage: 'rcpt' as const, state: 'replied' as const })),
            duration_ms: 150, connections: 1,
          };
          msg.respond(JSON.stringify(reply));
        }, 150);
      },
    });
    const beat = (): void => {
      const hb: ProbeHeartbeat = { node_id: nodeId, source_ips: ['127.0.0.1'], capacity: CAPACITY, in_flight: inFlight, provider_health: {}, at: new Date().toISOString() };
      t.nc.publish(SUBJECTS.probeHeartbeat, JSON.stringify(hb));
    };
    beat();
    const timer = setInterval(beat, 200);
    try {
      const { stop } = await t.startScheduler({ ...world.env, BATCH_WINDOW_MS: '300' });
      // Two addresses per domain, published together: every domain's batch is ready at the same moment.
      const { job } = await createTestJob(t.db, t.nc, DOMAINS.flatMap((d) => [`u1@${d}`, `u2@${d}`]));
      await waitForJob(t.db, job._id, 30_000);
      const items = await itemsOf(t.db, job._id);
      expect(items.every((i) => i.state === 'done' && i.attempts === 1)).toBe(true);
      expect(sessions).toBeGreaterThanOrEqual(DOMAINS.length);
      expect(most).toBeLessThanOrEqual(CAPACITY);
      await stop();
    } finally {
      clearInterval(timer);
      sub.unsubscribe();
    }
  }, 60_000);
});
