// What the request ids cost on the hot paths, against a baseline in the same run:
//   publish   25,000 JetStream publishes (JetStreamPublisher, as a list job's items) inside an HTTP
//             request's context (an X-Request-Id header on each) vs outside one (no header): CPU
//             of this process per publish.
//   http      requests/s of a trivial route on createHttpApp with the per-request log line
//             written (LOG_LEVEL=info, to /dev/null, synchronously like stdout) vs suppressed (warn).
// Rounds alternate the two sides; medians. `npm run bench -- signals [--rounds 5] [--items 25000]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { connect } from '@nats-io/transport-node';
import { pino } from 'pino';
import { CONSUMERS, STREAMS } from '@dv/contracts';
import { JetStreamPublisher, createHttpApp, createLogger, createRegistry, ensureStreams, finishHttpApp, natsManager, withRequestId } from '@dv/runtime';
import { startStack } from '@dv/stack';
import { benchArgs } from './lib/common.ts';

const args = benchArgs();
const rounds = Number(args.get('rounds') ?? 5);
const items = Number(args.get('items') ?? 25_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'dv-bench-signals-'));
const stack = await startStack({ dataDir: dir, servers: ['nats'] });
try {
  const nc = await connect({ servers: stack.env.NATS_URL, noAsyncTraces: true });
  await ensureStreams(await natsManager(nc), STREAMS.filter((s) => s.name === 'VERIFY'), CONSUMERS.filter((c) => c.stream === 'VERIFY'));
  const publisher = new JetStreamPublisher(nc);
  const body = JSON.stringify({ job_id: 'j_bench', seq: 0, email: 'someone@example.com', enqueued_at: new Date().toISOString() });
  const publishAll = async (tag: string) => {
    const t0 = process.cpuUsage();
    const jobs: Array<Promise<unknown>> = [];
    for (let i = 0; i < items; i++) jobs.push(publisher.publish('verify.item.list', body, { msgID: `${tag}-${i}` }));
    await Promise.all(jobs);
    const cpu = process.cpuUsage(t0);
    return (cpu.user + cpu.system) / items;
  };
  const plain: number[] = [];
  const withId: number[] = [];
  await publishAll('warm');
  for (let r = 0; r < rounds; r++) {
    plain.push(await publishAll(`p${r}`));
    withId.push(await withRequestId('3f1c2a9e-6c1b-4d7e-9a51-0c2f6f1b7d42', () => publishAll(`r${r}`)));
  }
  await (await natsManager(nc)).streams.purge('VERIFY');
  await nc.close();
  const pub = { plain_us: median(plain), with_id_us: median(withId) };
  console.log(`publish: ${pub.plain_us.toFixed(1)} us CPU per publish without a request id, ${pub.with_id_us.toFixed(1)} us with (x${(pub.with_id_us / pub.plain_us).toFixed(2)})`);

  const serve = async (level: string) => {
    const log = createLogger('bench', level, pino.destination({ dest: '/dev/null', sync: true }));
    const app = createHttpApp({ registry: createRegistry('bench'), log, dependencies: () => [], isShuttingDown: () => false });
    app.get('/v1/ping', (_req, res) => {
      res.json({ ok: true });
    });
    finishHttpApp(app, log);
    const srv = createServer(app);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/ping`;
    const result = await autocannon({ url, connections: 16, duration: 4 });
    await new Promise<void>((r) => srv.close(() => r()));
    return result.requests.average;
  };
  const quiet: number[] = [];
  const logged: number[] = [];
  for (let r = 0; r < Math.max(3, Math.ceil(rounds / 2)); r++) {
    quiet.push(await serve('warn'));
    logged.push(await serve('info'));
  }
  const http = { quiet_rps: median(quiet), logged_rps: median(logged) };
  console.log(`http: ${http.quiet_rps.toFixed(0)} req/s without the request log line, ${http.logged_rps.toFixed(0)} req/s with it (x${(http.logged_rps / http.quiet_rps).toFixed(2)})`);
  console.log(JSON.stringify({ bench: 'signals', items, rounds, publish_cpu_us: pub, publish_ratio: Number((pub.with_id_us / pub.plain_us).toFixed(3)), http, http_ratio: Number((http.logged_rps / http.quiet_rps).toFixed(3)) }));
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
