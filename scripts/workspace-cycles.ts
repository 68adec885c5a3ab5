// `npm run lint`: fails when the workspaces' package.json files, dependencies and devDependencies
// together, form a cycle, or when a package or a service declares a workspace above its layer. A package's tests that use a helper package which itself depends on that
// package would be such a cycle; with none, every workspace can be built, tested and reasoned
// about on top of the ones it names. Imports cannot hide a dependency from this check: the
// `workspaces/imports` ESLint rule makes every cross-workspace import a declared one.
import { readWorkspaces } from './eslint/workspace-imports.js';

export type WorkspaceGraph = ReadonlyMap<string, readonly string[]>;

/** Each workspace's name → the workspaces it declares (dependencies and devDependencies). */
export function workspaceGraph(root?: string): WorkspaceGraph {
  const table = readWorkspaces(root);
  const graph = new Map<string, string[]>();
  for (const w of table.list) {
    const named = Object.keys({ ...w.pkg.dependencies, ...w.pkg.devDependencies, ...w.pkg.peerDependencies, ...w.pkg.optionalDependencies });
    graph.set(w.name, named.filter((n) => table.byName.has(n) && n !== w.name).sort());
  }
  return graph;
}

/** One cycle as the path of names (first name repeated at the end), or null when there is none. */
export function findCycle(graph: WorkspaceGraph): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): string[] | null => {
    state.set(name, 'open');
    path.push(name);
    for (const next of graph.get(name) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(name, 'done');
    return null;
  };
  for (const name of [...graph.keys()].sort()) {
    if (state.get(name) === undefined) {
      const found = visit(name);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The README's rule in package.json terms: a package (packages/*) declares only packages; a service
 * declares only packages, never another service nor infra. infra and the repository root may
 * declare anything (they sit on top). One line per breach.
 */
export function layerBreaches(root?: string): string[] {
  const table = readWorkspaces(root);
  const isPackage = (dir: string): boolean => dir.startsWith('packages/');
  const isService = (dir: string): boolean => dir !== '' && dir !== 'infra' && !isPackage(dir);
  const breaches: string[] = [];
  for (const w of table.list) {
    if (!isPackage(w.dir) && !isService(w.dir)) continue;
    for (const name of Object.keys({ ...w.pkg.dependencies, ...w.pkg.devDependencies })) {
      const to = table.byName.get(name);
      if (to && to !== w && !isPackage(to.dir)) breaches.push(`${w.dir}/package.json declares ${name} (${to.dir || 'the root'}): ${isPackage(w.dir) ? 'a package' : 'a service'} may depend on packages/* only`);
    }
  }
  return breaches;
}

// `node scripts/workspace-cycles.ts [root]`: the repository this file is in, or another one.
if (import.meta.main) {
  const cycle = findCycle(workspaceGraph(process.argv[2]));
  if (cycle) {
    process.stderr.write(`workspace cycle (package.json dependencies + devDependencies): ${cycle.join(' -> ')}\n`);
    process.exitCode = 1;
  }
  for (const breach of layerBreaches(process.argv[2])) {
    process.stderr.write(`${breach}\n`);
    process.exitCode = 1;
  }
}
