// What tests, benchmarks and tools import from infra: the local stack, the service supervisor and
// the simulated internet.
export * from './stack/stack.ts';
export type { ServerHandle, ServerName } from './stack/servers.ts';
export * from './services.ts';
export * from '@dv/world';
export { applySchema, ensureDemoAccount, DEMO_ACCOUNT } from './demo-account.ts';
