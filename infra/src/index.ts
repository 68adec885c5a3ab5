// What other tools import from infra: the demo account the launcher creates. The local stack and
// the service supervisor are @dv/stack; the simulated internet is @dv/world.
export { ensureDemoAccount, DEMO_ACCOUNT } from './demo-account.ts';
