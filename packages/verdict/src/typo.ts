// Typo suggestions for the domain part: "did you mean jane@gmail.com?". Conservative by design, a
// wrong suggestion is worse than none:
//  - never for a popular mail domain itself or a known look-alike (data/typo-targets.ts);
//  - only for registrable domains (no subdomain), compared label by label with tldts;
//  - a slipped TLD (.con, .cmo, .cm, .co for .com...) is fixed when the rest names a target;
//  - the name part may differ from a target's by Damerau-Levenshtein distance 1 (targets of 5+
//    letters) or 2 (targets of 8+ letters), with the first letter right (or swapped with the
//    second): people rarely mistype the first letter, and "cloud.com" is not "icloud.com";
//  - ties go to the more popular target (table order).
import { parse } from 'tldts';
import { KNOWN_LOOKALIKES, TLD_SLIPS, TYPO_TARGETS } from './data/typo-targets.ts';

interface Split {
  name: string;
  suffix: string;
}

function split(domain: string): Split | null {
  const p = parse(domain);
  if (!p.domain || !p.publicSuffix || p.subdomain) return null;
  return { name: p.domain.slice(0, -(p.publicSuffix.length + 1)), suffix: p.publicSuffix };
}

const TARGETS = TYPO_TARGETS.map((d) => ({ domain: d, split: split(d) }));
const NEVER_CORRECT = new Set([...TYPO_TARGETS, ...KNOWN_LOOKALIKES]);

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}

function maxDistance(targetName: string): number {
  if (targetName.length >= 8) return 2;
  if (targetName.length >= 5) return 1;
  return 0;
}

function firstLetterPlausible(typed: string, target: string): boolean {
  return typed[0] === target[0] || (typed[0] === target[1] && typed[1] === target[0]);
}

/** The popular domain the given ASCII domain was probably meant to be, or null. */
export function suggestDomain(domain: string): string | null {
  const d = domain.toLowerCase();
  if (NEVER_CORRECT.has(d)) return null;
  const typed = split(d);
  if (!typed) return null;
  const suffix = TLD_SLIPS[typed.suffix] ?? typed.suffix;
  let best: { domain: string; distance: number } | null = null;
  for (const t of TARGETS) {
    if (!t.split || t.split.suffix !== suffix) continue;
    const distance = editDistance(typed.name, t.split.name);
    const ok = distance === 0 || (distance <= maxDistance(t.split.name) && firstLetterPlausible(typed.name, t.split.name));
    if (ok && (best === null || distance < best.distance)) best = { domain: t.domain, distance };
  }
  return best && best.domain !== d ? best.domain : null;
}

/** The full suggested address for a local part and ASCII domain, or null. */
export function didYouMean(localPart: string, domain: string): string | null {
  const suggestion = suggestDomain(domain);
  return suggestion ? `${localPart}@${suggestion}` : null;
}
