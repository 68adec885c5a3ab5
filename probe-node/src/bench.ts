// Internals the probe benchmark (test/bench/probe.ts) drives directly (@dv/probe-node/bench).
export { createResolver } from './resolve.ts';
export { runSession } from './session.ts';
