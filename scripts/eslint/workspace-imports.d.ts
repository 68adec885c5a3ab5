// Types of workspace-imports.js for the TypeScript that uses it (scripts/workspace-cycles.ts, tests).
import type { ESLint, Rule } from 'eslint';

export interface Workspace {
  /** Folder relative to the repository root; '' for the root itself. */
  dir: string;
  name: string;
  pkg: { name: string; exports?: string | Record<string, string>; main?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; workspaces?: string[] };
}
export interface WorkspaceTable {
  root: string;
  list: Workspace[];
  byName: Map<string, Workspace>;
}
export function readWorkspaces(root?: string): WorkspaceTable;
export function workspaceOf(table: WorkspaceTable, file: string): Workspace;
export function exportsSubpath(pkg: Workspace['pkg'], subpath: string): boolean;
declare const plugin: ESLint.Plugin & { rules: { imports: Rule.RuleModule } };
export default plugin;
