// The repository explains itself: a comment says why, in words a reader of this repository can
// follow, never by pointing at an issue tracker, a work session, a benchmark run or a design page
// kept outside it (docs/ is where the design lives, docs/bench/ where measured runs do); and every
// relative link in README.md and docs/ leads to a file (and heading) that exists. Pure: reads the
// working tree only.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/') && existsSync(join(ROOT, f)));

const SOURCE = /\.(ts|js|mjs|cjs|yaml|yml)$|(^|\/)Containerfile$/;
const HASH_COMMENTS = /\.(yaml|yml)$|(^|\/)Containerfile$/;

/** What a comment must not cite, each with the reason a reader gives for it. */
const FORBIDDEN: Array<[RegExp, string]> = [
  [/\bissues?\s+#?\d+/i, 'an issue number'],
  [/(?<![&\w])#\d{1,4}(?![\d.])/, 'an issue number (#N)'],
  [/\b(work|coding|agent|previous|earlier|lead's|other engineers'?)\s+sessions?\b/i, 'a work session'],
  [/\bsession\s+\d+\b/i, 'a work session'],
  [/\b(bench(mark)?\s+)?runs?\s+[A-Z]\d?\b(?![-'])/, 'a benchmark run label'],
  [/design\.md|\.\.\/shared\/|\/work\/shared|(^|[\s(`'"])specs\//, 'a design page outside the repository'],
];

/** The comment text of each line (with its line number): `//` and block comments, `#` in YAML. */
function comments(path: string, text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (HASH_COMMENTS.test(path)) {
      const m = /(?:^|\s)#\s?(.*)$/.exec(raw);
      if (m) out.push({ line, text: m[1]! });
      return;
    }
    const trimmed = raw.trim();
    if (inBlock) {
      out.push({ line, text: trimmed.replace(/^\*\/?/, '') });
      if (trimmed.includes('*/')) inBlock = false;
      return;
    }
    const block = /\/\*(.*)$/.exec(raw);
    if (block && !/['"`][^'"`]*\/\*/.test(raw.slice(0, block.index + 2))) {
      out.push({ line, text: block[1]! });
      if (!block[1]!.includes('*/')) inBlock = true;
      return;
    }
    // `//` after whitespace or at the start: not the `//` of a URL in a string.
    const m = /(?:^|\s)\/\/(.*)$/.exec(raw);
    if (m) out.push({ line, text: m[1]! });
  });
  return out;
}

function citationsIn(path: string, text: string): string[] {
  const found: string[] = [];
  for (const c of comments(path, text)) {
    for (const [re, what] of FORBIDDEN) if (re.test(c.text)) found.push(`${path}:${c.line} cites ${what}: ${c.text.trim()}`);
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Broken relative links of one Markdown file: a missing target, one outside the repository, or a missing heading. */
function brokenLinks(path: string, text: string): string[] {
  const broken: string[] = [];
  const body = text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1/gm, '');
  for (const m of body.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const abs = file ? resolve(ROOT, dirname(path), decodeURIComponent(file)) : join(ROOT, path);
    if (relative(ROOT, abs).startsWith('..')) {
      broken.push(`${path}: ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(abs)) {
      broken.push(`${path}: ${target} does not exist`);
      continue;
    }
    if (anchor && statSync(abs).isFile() && extname(abs) === '.md' && !anchors(abs).has(anchor)) {
      broken.push(`${path}: ${target} has no heading #${anchor}`);
    }
  }
  return broken;
}

/** Repository paths named in prose (`docs/x.md`, `docs/bench/`) that do not exist. */
function missingDocPaths(path: string, text: string): string[] {
  const missing: string[] = [];
  for (const m of text.matchAll(/(?<![\w./-])docs\/[\w./-]*[\w/]/g)) {
    const p = m[0].replace(/[.]+$/, '');
    if (!existsSync(join(ROOT, p))) missing.push(`${path}: names ${p}, which does not exist`);
  }
  return missing;
}

const MARKDOWN = FILES.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));

describe('comments say why', () => {
  it('no source comment cites an issue number, a work session, a benchmark run or a page outside the repository', () => {
    const found = FILES.filter((f) => SOURCE.test(f) && f !== 'test/docs.test.ts' && !f.endsWith('package-lock.json')).flatMap((f) =>
      citationsIn(f, readFileSync(join(ROOT, f), 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('the check finds each kind of citation, and leaves SMTP sessions, PKCS#1 and URLs alone', () => {
    const sample = [
      '// Redis with failover (issue 14): a primary',
      '// see #123 for the history',
      '/** measured in the previous session */',
      '// run G was the fastest',
      '  // defaults from design.md section 4',
      "const x = 'http://example.test/#42'; // the next session to the same MX host",
      '// a bare PKCS#1 key; qmail appends "(#5.1.1)"',
    ].join('\n');
    expect(citationsIn('x.ts', sample).map((s) => s.split(' cites ')[1]!.split(':')[0])).toEqual([
      'an issue number',
      'an issue number (#N)',
      'a work session',
      'a benchmark run label',
      'a design page outside the repository',
    ]);
    expect(citationsIn('x.yaml', '# Alerts (issue 12): lag\nkey: "#fff" # colour')).toHaveLength(1);
  });

  it('README.md and docs/ cite no issue numbers', () => {
    const found = MARKDOWN.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (/\bissues?\s+#?\d+/i.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});

describe('links between docs', () => {
  it('every relative link in README.md and docs/ leads to a file in the repository, and a heading that exists', () => {
    expect(MARKDOWN.length).toBeGreaterThan(10);
    const broken = MARKDOWN.flatMap((f) => brokenLinks(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(broken).toEqual([]);
  });

  it('every docs/ path named in README.md, docs/ or a source comment exists', () => {
    const missing = [
      ...MARKDOWN.flatMap((f) => missingDocPaths(f, readFileSync(join(ROOT, f), 'utf8'))),
      ...FILES.filter((f) => SOURCE.test(f) && f !== 'test/docs.test.ts').flatMap((f) => {
        const text = readFileSync(join(ROOT, f), 'utf8');
        return comments(f, text).flatMap((c) => missingDocPaths(`${f}:${c.line}`, c.text));
      }),
    ];
    expect(missing).toEqual([]);
  });

  it('the link check reads headings as GitHub does', () => {
    expect(slug("Two fixes of 2026-11-27: the caches' eviction, and the bench's MongoDB cache")).toBe(
      'two-fixes-of-2026-11-27-the-caches-eviction-and-the-benchs-mongodb-cache',
    );
    expect(slug('`PUBLIC_BASE_URL` and *links*')).toBe('public_base_url-and-links');
    expect(brokenLinks('docs/x.md', '[a](missing.md) [b](../README.md) [c](https://example.test/x) [d](../../outside.md)')).toEqual([
      'docs/x.md: missing.md does not exist',
      'docs/x.md: ../../outside.md leaves the repository',
    ]);
  });
});
