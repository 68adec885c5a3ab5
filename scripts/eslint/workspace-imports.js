// ESLint rule `workspaces/imports`: the layering the README states, enforced. Each npm workspace
// (packages/*, infra, the services; the repository root with test/ and scripts/ is one more) is a
// unit: code crosses into another workspace only by its package name, only to a subpath that
// workspace's package.json "exports" lists, and only when the importing workspace's package.json
// declares it (dependencies for runtime code, devDependencies for tests). Which workspace may
// depend on which is then visible in package.json alone, where scripts/workspace-cycles.ts
// refuses a cycle.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const DEFAULT_ROOT = resolve(import.meta.dirname, '../..');
const SCOPE = '@dv/';
const tables = new Map();

/** Every workspace of the repository at `root`, the root itself last: { dir, name, pkg }, dir relative ('' for the root). */
export function readWorkspaces(root = DEFAULT_ROOT) {
  const cached = tables.get(root);
  if (cached) return cached;
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = [];
  for (const pattern of rootPkg.workspaces ?? []) {
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      for (const e of readdirSync(join(root, parent), { withFileTypes: true })) {
        if (e.isDirectory() && existsSync(join(root, parent, e.name, 'package.json'))) dirs.push(`${parent}/${e.name}`);
      }
    } else {
      dirs.push(pattern);
    }
  }
  const list = dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    return { dir, name: pkg.name, pkg };
  });
  list.push({ dir: '', name: rootPkg.name, pkg: rootPkg });
  const table = { root, list, byName: new Map(list.map((w) => [w.name, w])) };
  tables.set(root, table);
  return table;
}

/** The workspace a file (absolute path) belongs to: the deepest workspace folder holding it, else the root. */
export function workspaceOf(table, file) {
  const rel = relative(table.root, file).split(sep).join('/');
  let best = table.list[table.list.length - 1];
  for (const w of table.list) {
    if (w.dir !== '' && (rel === w.dir || rel.startsWith(`${w.dir}/`)) && w.dir.length > best.dir.length) best = w;
  }
  return best;
}

/** Whether `pkg.exports` lists `subpath` ('.' or './x'), with "./x/*" patterns. */
export function exportsSubpath(pkg, subpath) {
  const exp = pkg.exports;
  if (exp === undefined) return subpath === '.' && pkg.main !== undefined;
  if (typeof exp === 'string') return subpath === '.';
  if (Object.hasOwn(exp, subpath)) return true;
  return Object.keys(exp).some((key) => {
    const star = key.indexOf('*');
    return star >= 0 && subpath.startsWith(key.slice(0, star)) && subpath.endsWith(key.slice(star + 1)) && subpath.length >= key.length - 1;
  });
}

function declares(pkg, name) {
  return [pkg.dependencies, pkg.devDependencies, pkg.peerDependencies, pkg.optionalDependencies].some((deps) => deps !== undefined && Object.hasOwn(deps, name));
}

function label(w) {
  return w.dir === '' ? 'the repository root (test/, scripts/)' : w.dir;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Cross a workspace boundary only by package name, to a declared dependency and an exported subpath' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
    messages: {
      relative: "'{{spec}}' leaves {{from}} for {{to}}: import it by package name ({{name}}, a subpath its package.json exports).",
      unknown: "'{{spec}}': no workspace is named {{name}}.",
      undeclared: "'{{spec}}': {{from}}/package.json does not declare {{name}} (dependencies for runtime code, devDependencies for tests).",
      unexported: "'{{spec}}': {{name}} does not export '{{subpath}}' (its package.json \"exports\" lists {{listed}}).",
    },
  },
  create(context) {
    const table = readWorkspaces(context.options[0]?.root ?? DEFAULT_ROOT);
    const file = context.physicalFilename ?? context.filename;
    const from = workspaceOf(table, file);

    function check(node, source) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (spec.startsWith('./') || spec.startsWith('../')) {
        const to = workspaceOf(table, resolve(dirname(file), spec));
        if (to !== from) context.report({ node: source, messageId: 'relative', data: { spec, from: label(from), to: label(to), name: to.name } });
        return;
      }
      if (!spec.startsWith(SCOPE)) return;
      const parts = spec.split('/');
      const name = parts.slice(0, 2).join('/');
      const subpath = parts.length > 2 ? `./${parts.slice(2).join('/')}` : '.';
      const to = table.byName.get(name);
      if (!to) {
        context.report({ node: source, messageId: 'unknown', data: { spec, name } });
        return;
      }
      if (to !== from && !declares(from.pkg, name)) context.report({ node: source, messageId: 'undeclared', data: { spec, from: from.dir === '' ? '.' : from.dir, name } });
      if (!exportsSubpath(to.pkg, subpath)) {
        const listed = to.pkg.exports && typeof to.pkg.exports === 'object' ? Object.keys(to.pkg.exports).map((k) => `'${k}'`).join(', ') : 'nothing';
        context.report({ node: source, messageId: 'unexported', data: { spec, name, subpath, listed } });
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export default { meta: { name: 'workspaces' }, rules: { imports: rule } };
