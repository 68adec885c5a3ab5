// Internals the benchmarks under test/bench measure on their own (@dv/gateway/bench).
export { Coalescer } from './services/coalescer.ts';
