// The layering rules of the README hold and stay enforced: `npm run lint` reports a relative import
// that leaves its workspace, an import of an undeclared workspace or of a subpath it does not
// export (scripts/eslint/workspace-imports.js), and a cycle between workspaces' package.json files
// (scripts/workspace-cycles.ts). Each check is shown to fire on a planted violation, in every
// workspace, and to be quiet on the real tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@dv/stack';
import workspaces, { readWorkspaces } from '../scripts/eslint/workspace-imports.js';
import { findCycle, layerBreaches, workspaceGraph } from '../scripts/workspace-cycles.ts';

// The rule alone (no type-aware or style rules), so linting the whole tree stays quick.
const eslint = new ESLint({
  cwd: REPO_ROOT,
  overrideConfigFile: true,
  overrideConfig: [
    { ignores: ['**/node_modules/**', '.local/**', 'coverage/**'], linterOptions: { reportUnusedDisableDirectives: 'off' } },
    { files: ['**/*.{ts,js,mjs}'], languageOptions: { parser: tseslint.parser }, plugins: { workspaces }, rules: { 'workspaces/imports': 'error' } },
  ],
});

const table = readWorkspaces(REPO_ROOT);

/** The rule's reports for `code` as if it were the file `file` (relative to the repository root). */
async function reports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'workspaces/imports' || m.fatal).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

function srcOf(dir: string): string {
  return dir === '' ? 'test' : `${dir}/src`;
}

describe('workspaces/imports', () => {
  it.each(table.list.map((w) => [w.dir === '' ? '(root)' : w.dir, w] as const))('reports relative imports that leave %s', async (_label, w) => {
    const other = table.list.find((o) => o !== w && o.dir !== '')!;
    const file = `${srcOf(w.dir)}/planted-violation.ts`;
    const target = relative(join(REPO_ROOT, srcOf(w.dir)), join(REPO_ROOT, other.dir, 'src/index.ts'));
    const code = [`import { a } from '${target}';`, `export { b } from '${target}';`, `export * from '${target}';`, `export const c = import('${target}');`, 'export const d = a;'].join('\n');
    const found = await reports(file, code);
    expect(found).toHaveLength(4);
    for (const r of found) expect(r).toMatch(new RegExp(`^workspaces/imports: '\\.\\./.*' leaves .* for ${other.dir}: import it by package name \\(${other.name}`));
  });

  it('lets a relative import stay inside its workspace', async () => {
    expect(await reports('gateway/src/planted-violation.ts', "import { a } from './defaults.ts';\nexport const b = a;")).toEqual([]);
  });

  it('reports a workspace the importing package.json does not declare', async () => {
    const found = await reports('packages/verdict/src/planted-violation.ts', "import { a } from '@dv/runtime';\nexport const b = a;");
    expect(found).toEqual(["workspaces/imports: '@dv/runtime': packages/verdict/package.json does not declare @dv/runtime (dependencies for runtime code, devDependencies for tests)."]);
    const service = await reports('packages/runtime/src/planted-violation.ts', "import { a } from '@dv/gateway/testing';\nexport const b = a;");
    expect(service).toEqual(["workspaces/imports: '@dv/gateway/testing': packages/runtime/package.json does not declare @dv/gateway (dependencies for runtime code, devDependencies for tests)."]);
  });

  it('reports a subpath the workspace does not export, and a name no workspace has', async () => {
    const found = await reports('gateway/src/planted-violation.ts', "import { a } from '@dv/runtime/src/mongo.ts';\nimport { b } from '@dv/nowhere';\nexport const c = [a, b];");
    expect(found).toEqual([
      "workspaces/imports: '@dv/runtime/src/mongo.ts': @dv/runtime does not export './src/mongo.ts' (its package.json \"exports\" lists '.', './mcp', './testing').",
      "workspaces/imports: '@dv/nowhere': no workspace is named @dv/nowhere.",
    ]);
  });

  it('finds nothing in the real tree', async () => {
    const results = await eslint.lintFiles(['.']);
    // Inline comments naming rules this config leaves out are not findings; parse errors are.
    const found = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'workspaces/imports' || m.fatal).map((m) => `${relative(REPO_ROOT, r.filePath)}:${m.line}: ${m.message}`));
    expect(found).toEqual([]);
    expect(results.length).toBeGreaterThan(500);
  }, 300_000);
});

describe('workspace cycles', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('finds a cycle through devDependencies, and none in a layered graph', () => {
    expect(findCycle(new Map([['@x/a', ['@x/b']], ['@x/b', ['@x/c']], ['@x/c', ['@x/a']]]))).toEqual(['@x/a', '@x/b', '@x/c', '@x/a']);
    expect(findCycle(new Map([['@x/a', ['@x/b', '@x/c']], ['@x/b', ['@x/c']], ['@x/c', []]]))).toBeNull();
  });

  it('fails `npm run lint` on a repository whose package.json files form a cycle', () => {
    const root = mkdtempSync(join(tmpdir(), 'layering-'));
    dirs.push(root);
    const write = (dir: string, pkg: object): void => {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'package.json'), JSON.stringify(pkg));
    };
    write('', { name: 'repo', workspaces: ['packages/*', 'service'] });
    write('packages/runtime', { name: '@x/runtime', devDependencies: { '@x/test-kit': '*' } });
    write('packages/test-kit', { name: '@x/test-kit', dependencies: { '@x/runtime': '*' } });
    write('service', { name: '@x/service', dependencies: { '@x/runtime': '*' } });
    expect(findCycle(workspaceGraph(root))).toEqual(['@x/runtime', '@x/test-kit', '@x/runtime']);
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/workspace-cycles.ts'), root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('workspace cycle (package.json dependencies + devDependencies): @x/runtime -> @x/test-kit -> @x/runtime');
  });

  it('fails on a package or a service declaring a workspace above its layer', () => {
    const root = mkdtempSync(join(tmpdir(), 'layering-'));
    dirs.push(root);
    const write = (dir: string, pkg: object): void => {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'package.json'), JSON.stringify(pkg));
    };
    write('', { name: 'repo', workspaces: ['packages/*', 'infra', 'gateway', 'lookup'] });
    write('packages/runtime', { name: '@x/runtime', devDependencies: { '@x/gateway': '*' } });
    write('infra', { name: '@x/infra', dependencies: { '@x/gateway': '*', '@x/runtime': '*' } });
    write('gateway', { name: '@x/gateway', dependencies: { '@x/runtime': '*' } });
    write('lookup', { name: '@x/lookup', devDependencies: { '@x/gateway': '*', '@x/infra': '*' } });
    expect(layerBreaches(root)).toEqual([
      'packages/runtime/package.json declares @x/gateway (gateway): a package may depend on packages/* only',
      'lookup/package.json declares @x/gateway (gateway): a service may depend on packages/* only',
      'lookup/package.json declares @x/infra (infra): a service may depend on packages/* only',
    ]);
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/workspace-cycles.ts'), root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('lookup/package.json declares @x/infra (infra)');
  });

  it('finds none in the real workspaces', () => {
    expect(findCycle(workspaceGraph(REPO_ROOT))).toBeNull();
    expect(layerBreaches(REPO_ROOT)).toEqual([]);
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/workspace-cycles.ts')], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
  });
});
