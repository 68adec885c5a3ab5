// The local stack launcher: NATS, Redis and MongoDB on free loopback ports (startStack), the
// service supervisor that runs each service as a process (startServiceProcess), and the tools
// both are built from, for the CLI, the cluster harness, tests and benchmarks.
export { DEFAULT_CACHE_DIR, REPO_ROOT, startStack } from './stack.ts';
export type { Stack, StackOptions } from './stack.ts';
export { allocatePort } from './servers.ts';
export type { ServerHandle, ServerName } from './servers.ts';
export { applySchema } from './schema.ts';
export { DEFAULT_PORTS, PORTFOLIO_API_NODE_OPTIONS, SERVICE_NAMES, SERVICE_NODE_OPTIONS, STACK_SECRETS, serviceNodeOptions, stackSecretsEnv, startServiceProcess, waitReady } from './services.ts';
export type { RunningProcess, ServiceName, StartServiceOptions } from './services.ts';
export { ensureCommand, which } from './install.ts';
export { LOCAL_ANONYMOUS_USER, localNatsAuthorization, natsUserEnv, natsUsersDir, passwordEnvName, renderNatsAuthorization } from './nats-auth.ts';
export { freePort, waitForPort } from './ports.ts';
export { killLeftovers, recordPid, startProcess, stopProcess } from './process.ts';
export type { Managed, StartProcessOptions } from './process.ts';
export { startSentinelSet } from './redis-sentinel.ts';
export type { SentinelSet } from './redis-sentinel.ts';
