// Policy checks of the rendered k8s/ overlays (pure: objects in, violations out), run by
// test/k8s.test.ts. What an operator would otherwise check by eye in review.
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

// Loose shapes of what the checks read; the schema validation has already checked the types.
interface Probe { httpGet?: { path?: string }; sleep?: { seconds?: number } }
interface Container {
  name: string;
  image?: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: Probe };
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
export interface PodSpec {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean };
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
}
interface Peer { ipBlock?: { cidr: string; except?: string[] }; podSelector?: { matchLabels?: Record<string, string> } }
interface NetworkPolicySpec {
  podSelector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  ingress?: Array<{ from?: Array<Peer & { namespaceSelector?: { matchLabels?: Record<string, string> } }> }>;
  egress?: Array<{ to?: Peer[]; ports?: Array<{ port?: number | string }> }>;
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
/** The three public APIs: the only pods that take traffic from outside the namespace. */
export const PUBLIC_APIS = ['gateway', 'lookup', 'portfolio-api'];
/** Stateless services that must run at least twice in prod. */
export const HA_SERVICES = ['gateway', 'lookup', 'portfolio-api', 'portfolio-worker', 'scheduler'];
const METADATA_V4 = '169.254.0.0/16';
const METADATA_V6 = 'fd00:ec2::254/128';
const DNS_PORTS = new Set([53]);

export function podSpecOf(o: K8sObject): PodSpec | undefined {
  const template = (o.spec as { template?: { spec?: PodSpec } } | undefined)?.template;
  return WORKLOADS.has(o.kind) ? template?.spec : undefined;
}

export function appName(o: K8sObject): string {
  return o.metadata.labels?.['app.kubernetes.io/name'] ?? o.metadata.name;
}

/** Every violation of the policies in `objects`; `prod` adds the production-only ones. */
export function policyViolations(objects: readonly K8sObject[], opts: { prod: boolean }): string[] {
  const out: string[] = [];
  for (const o of objects) {
    const pod = podSpecOf(o);
    if (!pod) continue;
    const where = `${o.kind}/${o.metadata.name}`;
    if (pod.securityContext?.runAsNonRoot !== true) out.push(`${where}: pod securityContext.runAsNonRoot is not true`);
    for (const c of pod.containers) {
      const at = `${where} container ${c.name}`;
      if (!c.livenessProbe) out.push(`${at}: no livenessProbe`);
      if (!c.readinessProbe) out.push(`${at}: no readinessProbe`);
      if (!c.resources?.requests?.cpu || !c.resources.requests.memory) out.push(`${at}: no cpu and memory requests`);
      if (!c.resources?.limits?.memory) out.push(`${at}: no memory limit`);
      if (c.securityContext?.runAsNonRoot !== true) out.push(`${at}: securityContext.runAsNonRoot is not true`);
      if (c.securityContext?.readOnlyRootFilesystem !== true) out.push(`${at}: securityContext.readOnlyRootFilesystem is not true`);
      if (c.securityContext?.allowPrivilegeEscalation !== false) out.push(`${at}: allowPrivilegeEscalation is not false`);
      if (!isPinned(c.image)) out.push(`${at}: image ${c.image ?? '(none)'} is not pinned (a tag other than latest, or a digest)`);
      const shutdownMs = Number(c.env?.find((e) => e.name === 'SHUTDOWN_TIMEOUT_MS')?.value ?? NaN);
      if (Number.isFinite(shutdownMs)) {
        // SHUTDOWN_DELAY_MS (readiness off before the listener closes) comes before the drain budget:
        // the container's, else platform-env's, else the runtime's default of 5 s.
        const delayMs = Number(c.env?.find((e) => e.name === 'SHUTDOWN_DELAY_MS')?.value ?? platformEnv(objects).SHUTDOWN_DELAY_MS ?? 5_000);
        const budgetS = (c.lifecycle?.preStop?.sleep?.seconds ?? 0) + (delayMs + shutdownMs) / 1000;
        if ((pod.terminationGracePeriodSeconds ?? 30) <= budgetS) out.push(`${at}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds ?? 30} is not above preStop + SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS (${budgetS} s)`);
      }
    }
    const replicas = (o.spec as { replicas?: number }).replicas ?? 1;
    if (o.kind === 'Deployment' && (replicas > 1 || minScale(objects, o.metadata.name) > 1) && !hasPdb(objects, appName(o))) out.push(`${where}: runs more than one replica without a PodDisruptionBudget`);
    if (opts.prod && o.kind === 'Deployment' && HA_SERVICES.includes(o.metadata.name) && replicas < 2) out.push(`${where}: ${replicas} replica(s) in prod; at least 2`);
  }
  if (opts.prod) {
    for (const name of HA_SERVICES) {
      if (minScale(objects, name) === 1) out.push(`${name}: autoscaler minimum is 1 in prod; at least 2`);
    }
  }
  out.push(...networkPolicyViolations(objects));
  return out;
}

function isPinned(image: string | undefined): boolean {
  if (!image) return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  return tag !== undefined && tag !== 'latest';
}

function hasPdb(objects: readonly K8sObject[], app: string): boolean {
  return objects.some((p) => p.kind === 'PodDisruptionBudget' && (p.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels?.['app.kubernetes.io/name'] === app);
}

/** The least replica count an HPA or ScaledObject for `deployment` keeps (0 when none scales it). */
function minScale(objects: readonly K8sObject[], deployment: string): number {
  for (const o of objects) {
    const spec = o.spec as { scaleTargetRef?: { name?: string }; minReplicas?: number; minReplicaCount?: number } | undefined;
    if (spec?.scaleTargetRef?.name !== deployment) continue;
    if (o.kind === 'HorizontalPodAutoscaler') return spec.minReplicas ?? 1;
    if (o.kind === 'ScaledObject') return spec.minReplicaCount ?? 0;
  }
  return 0;
}

/** Whether a NetworkPolicy's podSelector picks pods labelled app.kubernetes.io/name=`app`. */
function selects(spec: NetworkPolicySpec, app: string, labels: Record<string, string>): boolean {
  const sel = spec.podSelector;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const value = e.key === 'app.kubernetes.io/name' ? app : labels[e.key];
    if (e.operator === 'In' && !(value !== undefined && e.values?.includes(value))) return false;
    if (e.operator === 'NotIn' && value !== undefined && e.values?.includes(value)) return false;
  }
  return true;
}

function networkPolicyViolations(objects: readonly K8sObject[]): string[] {
  const out: string[] = [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy') as Array<K8sObject & { spec: NetworkPolicySpec & { policyTypes?: string[] } }>;
  const denyAll = policies.some((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress && p.spec.policyTypes?.includes('Ingress') && p.spec.policyTypes.includes('Egress'));
  if (!denyAll) out.push('NetworkPolicy: no default deny of ingress and egress for every pod');
  for (const p of policies) {
    for (const rule of p.spec.egress ?? []) {
      for (const peer of rule.to ?? []) {
        const b = peer.ipBlock;
        if (!b) continue;
        const v6 = b.cidr.includes(':');
        const needed = v6 ? METADATA_V6 : METADATA_V4;
        if (cidrCoversMetadata(b.cidr, v6) && !b.except?.includes(needed)) out.push(`NetworkPolicy/${p.metadata.name}: egress to ${b.cidr} does not except ${needed} (cloud metadata)`);
      }
    }
  }
  const apps = objects.filter((o) => podSpecOf(o)).map((o) => ({ app: appName(o), labels: (o.spec as { template: { metadata?: { labels?: Record<string, string> } } }).template.metadata?.labels ?? {} }));
  for (const { app, labels } of apps) {
    if (labels['app.kubernetes.io/part-of'] !== 'dv-platform' || ['nats', 'redis', 'mongodb'].includes(app)) continue;
    for (const p of policies.filter((pol) => selects(pol.spec, app, labels))) {
      for (const rule of p.spec.ingress ?? []) {
        for (const peer of rule.from ?? []) {
          const ns = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
          if (ns === 'monitoring') continue; // Prometheus scrapes every pod's metrics.
          if (!(PUBLIC_APIS.includes(app) && ns === 'ingress-nginx')) out.push(`NetworkPolicy/${p.metadata.name}: ${app} takes ingress from ${JSON.stringify(peer)}; only ${PUBLIC_APIS.join(', ')} take ingress (from the Ingress controller)`);
        }
      }
      if (app !== 'probe-node') continue;
      for (const rule of p.spec.egress ?? []) {
        const ports = (rule.ports ?? []).map((x) => Number(x.port));
        const toNats = (rule.to ?? []).every((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'nats');
        const toKubeDns = (rule.to ?? []).every((peer) => !peer.ipBlock && !peer.podSelector?.matchLabels?.['app.kubernetes.io/name']) && ports.every((x) => DNS_PORTS.has(x));
        const ok = ports.length > 0 && ((toNats && ports.every((x) => x === 4222)) || ports.every((x) => x === 25) || toKubeDns);
        if (!ok) out.push(`NetworkPolicy/${p.metadata.name}: probe-node egress ${JSON.stringify(rule)}; probe nodes reach only port 25, NATS and cluster DNS`);
      }
    }
  }
  return out;
}

function cidrCoversMetadata(cidr: string, v6: boolean): boolean {
  const [addr = '', bits = '0'] = cidr.split('/');
  if (v6) return Number(bits) <= 8 && (addr === '::' || addr.startsWith('fd') || addr.startsWith('fc'));
  const prefix = Number(bits);
  const toInt = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return ((toInt(addr) & mask) >>> 0) === ((toInt('169.254.169.254') & mask) >>> 0);
}

/** The data of ConfigMap platform-env (every platform container's envFrom). */
function platformEnv(objects: readonly K8sObject[]): Record<string, string> {
  return (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'platform-env') as { data?: Record<string, string> } | undefined)?.data ?? {};
}
