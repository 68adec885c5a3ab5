// What other workspaces' tests use of the gateway's test harness (@dv/gateway/testing).
export { startGatewayHarness, type GatewayHarness, type TestAccount } from './harness.ts';
export { startLiveStack, type LiveStack, type LiveStackOptions } from './live-stack.ts';
export { formToken, postForm, startConsoleHarness, withCookies, type ConsoleHarness } from './console.ts';
