// A UDP DNS proxy for the portfolio bench, run as its own process (argv: listen port, upstream
// port, delay ms, operator map JSON file). No netem in this sandbox (no sch_netem module), so
// the added latency is here: each answer goes back `delay` ms after its query arrived. Being on
// the path it also measures what the bench needs: the query stream (name and type, for dnsperf),
// queries in flight (for dnsperf's concurrency), and queries per second per authoritative-server
// operator (the politeness check). Controlled over IPC: {phase, capture} starts a phase,
// {report} ends it and answers with its figures (the capture written to <file>).
import dgram from 'node:dgram';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { zoneOf } from '@dv/portfolio-scanner/bench';
import type { OperatorMap } from './portfolio-world.ts';
import { overBudget } from './operator-rates.ts';

const [listenPort, upstreamPort, delayMs, operatorFile] = process.argv.slice(2).map((a, i) => (i < 3 ? Number(a) : a)) as [number, number, number, string];
const operators = JSON.parse(readFileSync(operatorFile, 'utf8')) as OperatorMap;
const TYPES: Record<number, string> = { 1: 'A', 2: 'NS', 5: 'CNAME', 6: 'SOA', 12: 'PTR', 15: 'MX', 16: 'TXT', 28: 'AAAA', 33: 'SRV', 257: 'CAA' };
const CAPTURE_MAX = 5_000_000;

// Receive buffers as large as the box allows (net.core.rmem_max; the kernel caps the request): at
// the default 208 KB a burst of a pass's first round (two workers' 128 scans x ~13 questions)
// arriving while this process was busy overflowed it, and every datagram dropped there was a
// worker's 2 s DNS timeout and retry (1% of a 10,000-domain pass's queries, a sixth of its scans:
// the bench prints the box's drops and the workers' timeouts per pass). A network path in front of
// a resolver is not that short of buffer.
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;
const front = dgram.createSocket({ type: 'udp4', recvBufferSize: RECEIVE_BUFFER_BYTES });
const back = dgram.createSocket({ type: 'udp4', recvBufferSize: RECEIVE_BUFFER_BYTES });
interface Pending {
  port: number;
  address: string;
  id: number;
  at: number;
}
const pending = new Map<number, Pending>();
let nextId = 0;

let capture: string[] | null = null;
let queries = 0;
let inflightSamples: number[] = [];
let second = 0;
let perOp = new Map<string, number>();
let maxPerOp = new Map<string, number>();
const rcodes: Record<number, number> = {};
// How late this process handles what arrives (its arrival times, and so the per-second counts, are that late).
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

function question(msg: Buffer): { name: string; type: string } | null {
  let off = 12;
  const labels: string[] = [];
  while (off < msg.length) {
    const len = msg[off]!;
    if (len === 0) break;
    labels.push(msg.toString('latin1', off + 1, off + 1 + len));
    off += len + 1;
  }
  if (off + 3 > msg.length) return null;
  const t = msg.readUInt16BE(off + 1);
  return { name: labels.join('.').toLowerCase() || '.', type: TYPES[t] ?? `TYPE${t}` };
}

// This process shares the box's two cores with what it measures, so it keeps its own work small:
// a name's zone is its longest suffix the world serves (a map lookup per label, where the
// politeness layer's zoneOf parses the public suffix list; the same zones, since the world's are
// registrable domains and /24 reverse zones), and answers wait in one queue with one timer
// instead of a timer each.
const operatorOf = new Map(Object.entries(operators).map(([zone, op]) => [zone, op.key]));
const budgetOf = new Map(Object.values(operators).map((op) => [op.key, op.qps]));
/** This second's queries of each small operator (source port, type, name): kept when it goes over budget. */
let seen = new Map<string, string[]>();
const overDetails: string[] = [];

/** Ends a second: which replica (source port) sent what to each operator over its budget. */
function endSecond(): void {
  for (const [k, v] of perOp) {
    if (v > (maxPerOp.get(k) ?? 0)) maxPerOp.set(k, v);
    const budget = budgetOf.get(k);
    if (budget === undefined || !overBudget(v, budget) || overDetails.length >= 20) continue;
    const names = seen.get(k) ?? [];
    const byPort = new Map<string, number>();
    const byType = new Map<string, number>();
    for (const n of names) {
      const [port, type] = n.split(' ') as [string, string];
      byPort.set(port, (byPort.get(port) ?? 0) + 1);
      byType.set(type, (byType.get(type) ?? 0) + 1);
    }
    overDetails.push(`${k} ${v}/${budget}: by source port ${JSON.stringify(Object.fromEntries(byPort))}, by type ${JSON.stringify(Object.fromEntries(byType))}; ${names.slice(0, 60).join(', ')}`);
  }
  perOp = new Map();
  seen = new Map();
}

function operatorKey(name: string): string {
  for (let at = 0; at >= 0; ) {
    const key = operatorOf.get(at === 0 ? name : name.slice(at));
    if (key !== undefined) return key;
    const dot = name.indexOf('.', at);
    at = dot < 0 ? -1 : dot + 1;
  }
  return `zone:${zoneOf(name)}`;
}

function count(name: string, type: string, port: number): void {
  const s = Math.floor(performance.now() / 1000);
  if (s !== second) {
    endSecond();
    second = s;
  }
  const key = operatorKey(name);
  perOp.set(key, (perOp.get(key) ?? 0) + 1);
  if ((budgetOf.get(key) ?? Infinity) < 100) {
    let list = seen.get(key);
    if (!list) seen.set(key, (list = []));
    list.push(`${port} ${type} ${name}`);
  }
}

/** Answers waiting for their time, in the order they came back (due times all `delayMs` after arrival). */
const due: { at: number; msg: Buffer; port: number; address: string }[] = [];
let dueHead = 0;
let dueTimer: NodeJS.Timeout | undefined;

function flushDue(): void {
  dueTimer = undefined;
  const now = performance.now();
  // Answers come back nearly in arrival order; one a little early behind a later one waits at most
  // the difference (under a millisecond on loopback).
  while (dueHead < due.length && (due[dueHead] as { at: number }).at <= now) {
    const a = due[dueHead++] as (typeof due)[number];
    front.send(a.msg, a.port, a.address);
  }
  if (dueHead > 4096 && dueHead * 2 > due.length) {
    due.splice(0, dueHead);
    dueHead = 0;
  }
  if (dueHead < due.length) dueTimer = setTimeout(flushDue, Math.max(1, (due[dueHead] as { at: number }).at - now));
}

front.on('message', (msg, rinfo) => {
  if (msg.length < 12) return;
  const q = question(msg);
  if (q) {
    queries++;
    count(q.name, q.type, rinfo.port);
    if (capture && capture.length < CAPTURE_MAX) capture.push(`${q.name} ${q.type}`);
  }
  const id = nextId;
  nextId = (nextId + 1) & 0xffff;
  pending.set(id, { port: rinfo.port, address: rinfo.address, id: msg.readUInt16BE(0), at: performance.now() });
  msg.writeUInt16BE(id, 0);
  back.send(msg, upstreamPort, '127.0.0.1');
});

back.on('message', (msg) => {
  const id = msg.readUInt16BE(0);
  const p = pending.get(id);
  if (!p) return;
  pending.delete(id);
  const rcode = msg[3]! & 0x0f;
  rcodes[rcode] = (rcodes[rcode] ?? 0) + 1;
  msg.writeUInt16BE(p.id, 0);
  const at = p.at + delayMs;
  if (at <= performance.now() && dueHead >= due.length) {
    front.send(msg, p.port, p.address);
    return;
  }
  due.push({ at, msg, port: p.port, address: p.address });
  dueTimer ??= setTimeout(flushDue, Math.max(1, at - performance.now()));
});

// Queries in flight (arrived, answer not yet sent back), sampled every 10 ms: dnsperf replays
// the stream with as many outstanding queries as the scan kept.
let sent = 0;
const origSend = front.send.bind(front);
(front as unknown as { send: typeof origSend }).send = ((...a: Parameters<typeof origSend>) => {
  sent++;
  return origSend(...a);
}) as typeof origSend;
setInterval(() => inflightSamples.push(queries - sent), 10).unref();

process.on('message', (m: { phase?: string; capture?: boolean; report?: string }) => {
  if (m.phase !== undefined) {
    capture = m.capture ? [] : null;
    queries = 0;
    sent = 0;
    inflightSamples = [];
    perOp = new Map();
    maxPerOp = new Map();
    seen = new Map();
    overDetails.length = 0;
    for (const k of Object.keys(rcodes)) delete rcodes[Number(k)];
    lag.reset();
    process.send!({ ok: true });
  }
  if (m.report !== undefined) {
    endSecond();
    if (capture && m.report) writeFileSync(m.report, `${capture.join('\n')}\n`);
    const sorted = [...inflightSamples].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    process.send!({ queries, captured: capture?.length ?? 0, inflightMean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length), inflightP99: at(0.99), inflightMax: sorted.at(-1) ?? 0, maxPerOp: Object.fromEntries(maxPerOp), overDetails: [...overDetails], rcodes: { ...rcodes }, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6 });
  }
});

front.bind(listenPort, '127.0.0.1', () => back.bind(0, '127.0.0.1', () => process.send!({ ready: true })));
