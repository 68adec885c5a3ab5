// k8s/: both overlays render with `kubectl kustomize`, every object validates against the
// Kubernetes OpenAPI schemas (kubernetes-models: v1.34 API) and the KEDA and Prometheus Operator
// CRD schemas, the policies in k8s-policy.ts hold, and every platform container's environment
// passes its service's own config validation (NODE_ENV=production rules in prod), secrets and
// per-node files resolved as the kubelet would. No cluster and no network needed.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CONSUMERS, NATS_USERS } from '@dv/contracts';
import { NATS_PRODUCTION_RULES, loadConfig } from '@dv/runtime';
import { NATS_AUTH_FILE, renderK8sNatsAuth } from '../scripts/k8s-nats-auth.ts';
import { passwordEnvName } from '@dv/stack';
import { serviceNodeOptions, type ServiceName } from '@dv/stack';
import { gatewayConfigSchema, gatewayProductionRules } from '@dv/gateway/config';
import { lookupConfigSchema, lookupProductionRules } from '@dv/lookup/config';
import { portfolioConfigSchema, portfolioProductionRules } from '@dv/portfolio-scanner/config';
import { probeConfigSchema, probeProductionRules } from '@dv/probe-node/config';
import { schedulerConfigSchema, schedulerProductionRules } from '@dv/scheduler/config';
import { OUTPUT_FILE, renderPrometheusRules } from '../scripts/k8s-prometheus-rules.ts';
import { policyViolations, podSpecOf, type K8sObject, type PodSpec } from './k8s-policy.ts';

const K8S = join(import.meta.dirname, '..', 'k8s');
/** Secrets the operator creates in prod (docs/operations.md); their contents are simulated here. */
const OPERATOR_SECRETS: Record<string, Record<string, string>> = {
  'dv-signing': { 'download-signing-secret': 'k8s-test-signing-secret-0123456789-abcdefghijklmnop' },
  'dv-lookup-web': { 'web-secret': 'k8s-test-lookup-web-secret-0123456789-abcdefghij' },
  'dv-portfolio-signing': { 'export-signing-secret': 'k8s-test-portfolio-export-secret-0123456789-abcdef' },
  'dv-smtp': { 'relay-url': 'smtps://user:pass@smtp.example.com:465' },
  'public-apis-tls': {},
  // One bus password per service (scripts/k8s-nats-auth.ts).
  ...Object.fromEntries(NATS_USERS.map((u) => [`dv-nats-${u}`, { password: `k8s-test-nats-${u}-password` }])),
};
/** Variables read outside the services' schemas: by node (NODE_OPTIONS), by the image's entrypoint or by $(NODE_NAME) expansion. */
const NOT_IN_SCHEMA = new Set(['NODE_OPTIONS', 'NODE_NAME', 'PORTFOLIO_ROLE']);

const CONFIG = {
  gateway: { schema: gatewayConfigSchema, rules: gatewayProductionRules },
  lookup: { schema: lookupConfigSchema, rules: lookupProductionRules },
  'portfolio-scanner': { schema: portfolioConfigSchema, rules: portfolioProductionRules },
  scheduler: { schema: schedulerConfigSchema, rules: schedulerProductionRules },
  'probe-node': { schema: probeConfigSchema, rules: probeProductionRules },
} as const;

function render(overlay: string): K8sObject[] {
  const r = spawnSync('kubectl', ['kustomize', join(K8S, 'overlays', overlay)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`kubectl not runnable (${r.error.message}); .ci/run installs Debian's kubernetes-client`);
  if (r.status !== 0) throw new Error(`kubectl kustomize ${overlay} failed:\n${r.stderr}`);
  return (loadAll(r.stdout) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
}

/** kubernetes-models (and its KEDA / Prometheus Operator packages) module of an apiVersion and kind. */
function modelPath(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === 'keda.sh') return `@kubernetes-models/keda/keda.sh/${version}/${kind}`;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/monitoring.coreos.com/${version}/${kind}`;
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}

async function schemaErrors(objects: readonly K8sObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const o of objects) {
    const mod = (await import(modelPath(o.apiVersion, o.kind))) as Record<string, new (data: unknown) => { validate(): void }>;
    const Model = mod[o.kind];
    if (!Model) throw new Error(`no model for ${o.apiVersion} ${o.kind}`);
    try {
      new Model(o).validate();
    } catch (err) {
      errors.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
    }
  }
  return errors;
}

interface Volume { name: string; secret?: { secretName: string }; configMap?: { name: string } }
interface FullContainer { name: string; args?: string[]; envFrom?: Array<{ configMapRef?: { name: string } }>; env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>; volumeMounts?: Array<{ name: string; mountPath: string }> }

/** What the container's process sees: envFrom, env with $(VAR) expansion, and each NAME_FILE read into NAME. */
function containerEnv(objects: readonly K8sObject[], pod: PodSpec & { volumes?: Volume[] }, c: FullContainer, nodeName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) Object.assign(env, find(objects, 'ConfigMap', from.configMapRef!.name).data);
  for (const e of c.env ?? []) {
    const field = e.valueFrom?.fieldRef?.fieldPath;
    const value = field === 'spec.nodeName' ? nodeName : field === 'status.podIP' ? '10.20.30.40' : (e.value ?? '');
    env[e.name] = value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (_, n: string) => env[n] ?? `$(${n})`);
  }
  for (const name of Object.keys(env).filter((n) => n.endsWith('_FILE'))) {
    const path = env[name]!;
    const mount = (c.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath}/`));
    const volume = pod.volumes?.find((v) => v.name === mount?.name);
    if (!mount || !volume) throw new Error(`${c.name}: ${name}=${path} is on no mounted volume`);
    const key = path.slice(mount.mountPath.length + 1);
    const data = volume.secret ? secretData(objects, volume.secret.secretName) : find(objects, 'ConfigMap', volume.configMap!.name).data ?? {};
    if (data[key] === undefined) throw new Error(`${c.name}: ${name}=${path}: key ${key} is not in volume ${volume.name}`);
    env[name.slice(0, -'_FILE'.length)] = data[key].trim();
    delete env[name];
  }
  return env;
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind}/${name} is referenced but not rendered`);
  return o;
}

function secretData(objects: readonly K8sObject[], name: string): Record<string, string> {
  const rendered = objects.find((x) => x.kind === 'Secret' && x.metadata.name === name);
  if (rendered) return Object.fromEntries(Object.entries(rendered.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  const operator = OPERATOR_SECRETS[name];
  if (!operator) throw new Error(`Secret/${name} is neither rendered nor one the operator creates (docs/operations.md)`);
  return operator;
}

/** Config problems of every platform container (one entry per container and, for probe nodes, per pool node). */
function configProblems(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const probePool = find(objects, 'ConfigMap', 'probe-pool').data ?? {};
  const probeNodes = Object.keys(probePool).filter((k) => k.endsWith('.helo-name')).map((k) => k.slice(0, -'.helo-name'.length));
  for (const o of objects) {
    const pod = podSpecOf(o) as (PodSpec & { volumes?: Volume[] }) | undefined;
    if (!pod) continue;
    for (const c of pod.containers as FullContainer[]) {
      const service = c.args?.[0] as ServiceName | undefined;
      if (!service || !(service in CONFIG)) continue;
      const { schema, rules } = CONFIG[service as keyof typeof CONFIG];
      for (const node of service === 'probe-node' ? probeNodes : ['node-1']) {
        const at = `${o.kind}/${o.metadata.name}${service === 'probe-node' ? ` on ${node}` : ''}`;
        try {
          const env = containerEnv(objects, pod, c, node);
          for (const name of Object.keys(env)) if (!(name in schema.shape) && !NOT_IN_SCHEMA.has(name)) problems.push(`${at}: ${name} is not a ${service} setting`);
          // runService adds the bus rules for every service on the bus (all but lookup).
          loadConfig(service, schema as never, env, (service === 'lookup' ? rules : { ...NATS_PRODUCTION_RULES, ...rules }) as never);
          const nodeOptions = serviceNodeOptions(service, env);
          if (nodeOptions && env.NODE_OPTIONS !== nodeOptions) problems.push(`${at}: NODE_OPTIONS ${env.NODE_OPTIONS ?? '(unset)'}, packages/stack/src/services.ts says ${nodeOptions}`);
        } catch (err) {
          problems.push(`${at}: ${(err as Error).message}`);
        }
      }
    }
  }
  if (probeNodes.length === 0) problems.push('ConfigMap/probe-pool names no node');
  return problems;
}

interface IngressPath { path: string; pathType: string; backend: { service: { name: string } } }
interface IngressObject extends K8sObject { metadata: K8sObject['metadata'] & { annotations?: Record<string, string> }; spec: { rules: Array<{ host: string; http: { paths: IngressPath[] } }> } }

/**
 * Which Ingress path ingress-nginx picks for a request path on `host`, and whether that location lets
 * the internet through: with use-regex on any of the host's Ingresses every path of the host is a
 * case-insensitive regex anchored at the start (`location ~* "^<path>"`), the longest first;
 * otherwise Exact, then the longest Prefix. An allowlist of loopback only means nobody passes.
 */
function ingressRoute(objects: readonly K8sObject[], host: string, path: string): { service: string; open: boolean } | null {
  const ingresses = objects.filter((o): o is IngressObject => o.kind === 'Ingress');
  const candidates = ingresses.flatMap((ing) => ing.spec.rules.filter((r) => r.host === host).flatMap((r) => r.http.paths.map((p) => ({ p, ing }))));
  const regex = candidates.some(({ ing }) => ing.metadata.annotations?.['nginx.ingress.kubernetes.io/use-regex'] === 'true');
  const normal = path.replace(/\/{2,}/g, '/'); // nginx merge_slashes
  const matches = (p: IngressPath): boolean => {
    if (regex) return new RegExp(`^${p.path}`, 'i').test(normal);
    if (p.pathType === 'Exact') return normal === p.path;
    const prefix = p.path.replace(/\/+$/, '');
    return prefix === '' || normal === prefix || normal.startsWith(`${prefix}/`);
  };
  const order = [...candidates].sort((a, b) => (!regex && a.p.pathType !== b.p.pathType ? (a.p.pathType === 'Exact' ? -1 : 1) : b.p.path.length - a.p.path.length));
  const hit = order.find(({ p }) => matches(p));
  if (!hit) return null;
  const allow = hit.ing.metadata.annotations?.['nginx.ingress.kubernetes.io/whitelist-source-range'] ?? hit.ing.metadata.annotations?.['nginx.ingress.kubernetes.io/allowlist-source-range'];
  const open = !allow || allow.split(',').some((c) => !/^(127\.|::1\/)/.test(c.trim()));
  return { service: hit.p.backend.service.name, open };
}

describe.each([
  { overlay: 'dev', prod: false },
  { overlay: 'prod', prod: true },
])('k8s overlay $overlay', ({ overlay, prod }) => {
  const objects = render(overlay);

  it('renders every component', () => {
    const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name).sort();
    expect(names('Deployment')).toEqual(['gateway', 'lookup', 'portfolio-api', 'portfolio-worker', 'scheduler']);
    expect(names('DaemonSet')).toEqual(['probe-node']);
    expect(names('StatefulSet')).toEqual(['mongodb', 'nats', 'redis']);
    expect(objects.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'dv')).toBe(true);
    const replicas = (name: string) => (find(objects, 'StatefulSet', name).spec as { replicas: number }).replicas;
    expect([replicas('nats'), replicas('mongodb')]).toEqual(prod ? [3, 3] : [1, 1]);
    // Streams as replicated as the NATS cluster is large (unset means 1).
    expect(Number(find(objects, 'ConfigMap', 'platform-env').data?.NATS_STREAM_REPLICAS ?? 1)).toBe(replicas('nats'));
    // Redis with failover in prod: one Sentinel per redis pod, every one of them named to the services.
    expect(replicas('redis')).toBe(prod ? 3 : 1);
    const sentinels = find(objects, 'ConfigMap', 'platform-env').data?.REDIS_SENTINELS;
    expect(sentinels?.split(',') ?? []).toEqual(prod ? [0, 1, 2].map((i) => `redis-${i}.redis-headless:26379`) : []);
  });

  it('validates against the Kubernetes, KEDA and Prometheus Operator schemas', async () => {
    expect(await schemaErrors(objects)).toEqual([]);
  });

  it('meets the policies (probes, resources, non-root, read-only root, PDBs, pinned images, network policies)', () => {
    expect(policyViolations(objects, { prod })).toEqual([]);
  });

  it("passes every service's config validation with the rendered environment", () => {
    const nodeEnv = find(objects, 'ConfigMap', 'platform-env').data?.NODE_ENV;
    expect(nodeEnv).toBe(prod ? 'production' : 'development');
    expect(configProblems(objects)).toEqual([]);
  });

  it("gives nats-server every bus user's password from the Secret that user's pods mount, in a config nats-server accepts", () => {
    type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
    const nats = podSpecOf(find(objects, 'StatefulSet', 'nats'))!.containers[0] as unknown as { env: Env[] };
    const serverSecret = new Map(nats.env.filter((e) => e.valueFrom?.secretKeyRef).map((e) => [e.name, e.valueFrom!.secretKeyRef!]));
    const mounted = new Map<string, string>();
    for (const o of objects) {
      const pod = podSpecOf(o) as (PodSpec & { volumes?: Volume[] }) | undefined;
      for (const c of (pod?.containers ?? []) as Array<FullContainer & { env?: Env[] }>) {
        const user = c.env?.find((e) => e.name === 'NATS_USER')?.value;
        if (!user) continue;
        const mount = c.volumeMounts?.find((m) => m.mountPath === '/etc/dv/nats');
        const secret = pod?.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName;
        expect(secret, `${o.metadata.name}: NATS_USER ${user} without its password Secret`).toBeDefined();
        mounted.set(user, secret!);
        expect(serverSecret.get(passwordEnvName(user as never))).toEqual({ name: secret, key: 'password' });
      }
    }
    expect([...mounted.keys()].sort()).toEqual([...NATS_USERS].sort());
    // The rendered config, with those passwords in nats-server's environment, loads (-t: check only).
    const dir = mkdtempSync(join(tmpdir(), 'dv-k8s-nats-'));
    try {
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-config'))!;
      for (const [file, text] of Object.entries(config.data ?? {})) writeFileSync(join(dir, file), text);
      const env: Record<string, string> = { PATH: `${process.env.PATH}:/usr/sbin`, POD_NAME: 'nats-0' };
      for (const [name, ref] of serverSecret) env[name] = secretData(objects, ref.name)[ref.key]!;
      const r = spawnSync('nats-server', ['-c', join(dir, 'nats.conf'), '-t'], { encoding: 'utf8', env });
      expect(`${r.stdout}${r.stderr}`).toMatch(/is valid/);
      // Without a password in its environment the server does not start (no silent empty password).
      const missing = spawnSync('nats-server', ['-c', join(dir, 'nats.conf'), '-t'], { encoding: 'utf8', env: { ...env, [passwordEnvName('scheduler')]: undefined } as never });
      expect(missing.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps /metrics and /readyz of the public services off the internet, and routes everything else to them', () => {
    const hosts = objects.filter((o): o is IngressObject => o.kind === 'Ingress').flatMap((o) => o.spec.rules.map((r) => r.host));
    expect(new Set(hosts).size).toBe(3);
    for (const host of new Set(hosts)) {
      for (const path of ['/metrics', '/readyz', '/METRICS', '/Readyz/', '//metrics', '/metrics/', '/readyz/x']) expect(ingressRoute(objects, host, path)?.open, `${host}${path}`).toBe(false);
      for (const path of ['/', '/healthz', '/v1/verify', '/api/v1/metrics-report', '/mcp', '/openapi.json', '/metricsx']) expect(ingressRoute(objects, host, path), `${host}${path}`).toMatchObject({ open: true });
    }
  });

  it('scales on the durable consumers the services declare', () => {
    const durables = new Set(CONSUMERS.map((c) => `${c.stream}/${c.durable}`));
    const triggers = objects.filter((o) => o.kind === 'ScaledObject').flatMap((o) => (o.spec as { triggers: Array<{ metadata: { stream: string; consumer: string } }> }).triggers);
    expect(triggers.map((t) => `${t.metadata.stream}/${t.metadata.consumer}`).sort()).toEqual([...durables].sort());
  });
});

describe('k8s checks catch what they are for', () => {
  const objects = render('prod');
  const mutate = (fn: (copy: K8sObject[]) => void) => {
    const copy = structuredClone(objects);
    fn(copy);
    return copy;
  };
  const deployment = (objs: K8sObject[], name: string) => find(objs, 'Deployment', name) as K8sObject & { spec: { replicas: number; template: { spec: PodSpec & { containers: Array<Record<string, unknown>> } } } };

  it('reports a missing probe, an unpinned image, a writable root, a lone prod replica and a missing PDB', () => {
    const broken = mutate((objs) => {
      const c = deployment(objs, 'gateway').spec.template.spec.containers[0]!;
      delete c.readinessProbe;
      c.image = 'registry.example.com/dv/dv-platform:latest';
      (c.securityContext as Record<string, unknown>).readOnlyRootFilesystem = false;
      deployment(objs, 'lookup').spec.replicas = 1;
      objs.splice(objs.findIndex((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'scheduler'), 1);
    });
    const found = policyViolations(broken, { prod: true }).join('\n');
    expect(found).toMatch(/Deployment\/gateway container gateway: no readinessProbe/);
    expect(found).toMatch(/dv-platform:latest is not pinned/);
    expect(found).toMatch(/gateway: securityContext.readOnlyRootFilesystem is not true/);
    expect(found).toMatch(/Deployment\/lookup: 1 replica\(s\) in prod/);
    expect(found).toMatch(/Deployment\/scheduler: runs more than one replica without a PodDisruptionBudget/);
  });

  it('reports metadata reachable, a probe node reaching port 443 and ingress to a private service', () => {
    const broken = mutate((objs) => {
      const internet = find(objs, 'NetworkPolicy', 'services-to-internet').spec as { egress: Array<{ to: Array<{ ipBlock: { except: string[] } }> }> };
      internet.egress[0]!.to[0]!.ipBlock.except = ['10.0.0.0/8'];
      const probe = find(objs, 'NetworkPolicy', 'probe-node-egress').spec as { egress: Array<{ ports: Array<{ port: number }> }> };
      probe.egress[0]!.ports.push({ port: 443 });
      const publicIngress = find(objs, 'NetworkPolicy', 'public-apis-ingress').spec as { podSelector: { matchExpressions: Array<{ values: string[] }> } };
      publicIngress.podSelector.matchExpressions[0]!.values.push('scheduler');
    });
    const found = policyViolations(broken, { prod: true }).join('\n');
    expect(found).toMatch(/services-to-internet: egress to 0.0.0.0\/0 does not except 169.254.0.0\/16/);
    expect(found).toMatch(/probe-node-egress: probe-node egress/);
    expect(found).toMatch(/public-apis-ingress: scheduler takes ingress/);
  });

  it("reports a setting production refuses, an unknown variable and a grace period below the drain", () => {
    const broken = mutate((objs) => {
      const pod = deployment(objs, 'gateway').spec.template.spec;
      const env = pod.containers[0]!.env as Array<{ name: string; value?: string }>;
      env.find((e) => e.name === 'PUBLIC_BASE_URL')!.value = 'http://127.0.0.1:8080';
      env.push({ name: 'PUBLIC_BASE_ULR', value: 'https://typo.example.com' });
      pod.terminationGracePeriodSeconds = 10;
    });
    const problems = configProblems(broken).join('\n');
    expect(problems).toMatch(/Deployment\/gateway: gateway: invalid configuration for NODE_ENV=production:\n\s+- PUBLIC_BASE_URL: .*loopback/);
    expect(problems).toMatch(/PUBLIC_BASE_ULR is not a gateway setting/);
    expect(policyViolations(broken, { prod: true }).join('\n')).toMatch(/gateway: terminationGracePeriodSeconds 10 is not above preStop \+ SHUTDOWN_DELAY_MS \+ SHUTDOWN_TIMEOUT_MS \(14 s\)/);
    // Without platform-env's 0, the runtime's 5 s delay comes on top of preStop and the drain budget.
    const noDelay = mutate((objs) => {
      delete find(objs, 'ConfigMap', 'platform-env').data!.SHUTDOWN_DELAY_MS;
    });
    expect(policyViolations(noDelay, { prod: true }).join('\n')).toMatch(/scheduler container scheduler: terminationGracePeriodSeconds 25 is not above preStop \+ SHUTDOWN_DELAY_MS \+ SHUTDOWN_TIMEOUT_MS \(25 s\)/);
  });

  it('reports a portfolio API without its export signing secret', () => {
    const broken = mutate((objs) => {
      const c = deployment(objs, 'portfolio-api').spec.template.spec.containers[0]!;
      c.env = (c.env as Array<{ name: string }>).filter((e) => e.name !== 'PORTFOLIO_EXPORT_SIGNING_SECRET_FILE');
    });
    expect(configProblems(broken).join('\n')).toMatch(/Deployment\/portfolio-api: portfolio-scanner: invalid configuration for NODE_ENV=production:\n\s+- PORTFOLIO_EXPORT_SIGNING_SECRET: required/);
  });

  it('reports a probe node without an assigned identity', () => {
    const broken = mutate((objs) => {
      const pool = find(objs, 'ConfigMap', 'probe-pool');
      delete pool.data!['probe-2.example.com.source-ips'];
    });
    expect(configProblems(broken).join('\n')).toMatch(/DaemonSet\/probe-node on probe-2.example.com: .*PROBE_SOURCE_IPS_FILE.*source-ips is not in volume probe-pool/);
  });
});

it('k8s/base/prometheus-rules.yaml is generated from the current infra/prometheus/rules (node scripts/k8s-prometheus-rules.ts)', () => {
  expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(renderPrometheusRules());
});

it('k8s/base/nats-auth.conf is generated from the current NATS_ROLES (node scripts/k8s-nats-auth.ts)', () => {
  expect(readFileSync(NATS_AUTH_FILE, 'utf8')).toBe(renderK8sNatsAuth());
});
