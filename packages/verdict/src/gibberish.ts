// Gibberish detector for local parts: is this mailbox name machine-generated or a key mash rather
// than something a person or a business would choose? The heuristic, in order (first hit wins):
//  1. digits and letters interleaved three or more times ("xk7qpz9w", "a1b2c3") -> generated id;
//  2. a hex string of 8+ characters switching between letters and digits twice ("fade1234bc");
//  3. a letter run that is one short unit repeated ("jkjkjk", "sdfsdfsdf") or one letter 4+ times;
//  4. a keyboard walk: 6+ letters where at least 80% of neighbours are neighbouring keys in a row
//     ("asdfgh", "poiuyt", and "asd123qwe" once its letters are joined);
//  5. a run of 6+ letters with no vowel at all (a, e, i, o, u, y): no naming tradition has one;
//  6. the character model: each letter run of 4+ letters is compared under two explanations, a
//     trigram model trained on names and words from many languages (char-model.ts) and a source
//     typing letters uniformly at random. The run is gibberish when the random explanation is
//     more than RANDOM_EVIDENCE_BITS bits (2^5 = 32 times) likelier, even after letting one or two
//     leading letters or one trailing letter be initials ("jsmith", "smithj").
// Numbers alone (phone numbers, QQ ids) and runs of 3 letters or fewer are never judged by the
// model: initials and short Asian names are indistinguishable from chance at that length.
import { NAME_MODEL } from './char-model.ts';
import type { CharModel } from './char-model.ts';

export interface GibberishResult {
  gibberish: boolean;
  /** Which rule decided, for logs and the docs' rate table. */
  rule: 'letter_digit_mix' | 'hex' | 'repetition' | 'keyboard_walk' | 'no_vowel' | 'char_model' | 'none';
  /** Strongest evidence (bits) for "typed at random" among the letter runs scored; null when none. */
  evidenceBits: number | null;
}

/** How many bits of evidence for "random" make a run gibberish (calibrated in docs/verdict.md). */
export const RANDOM_EVIDENCE_BITS = 5;

const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'] as const;
const KEY_POS = new Map<string, { row: number; col: number }>();
KEYBOARD_ROWS.forEach((keys, row) => {
  for (let col = 0; col < keys.length; col++) KEY_POS.set(keys[col]!, { row, col });
});

// Only neighbours in the same row count: with diagonal and vertical steps too, ordinary names
// ("fredrik", "teresa", "sasaki") look like walks.
function keysAdjacent(a: string, b: string): boolean {
  const p = KEY_POS.get(a);
  const q = KEY_POS.get(b);
  return p !== undefined && q !== undefined && p.row === q.row && Math.abs(p.col - q.col) === 1;
}

function isKeyboardWalk(run: string): boolean {
  if (run.length < 6) return false;
  let adjacent = 0;
  for (let i = 1; i < run.length; i++) if (keysAdjacent(run[i - 1]!, run[i]!)) adjacent++;
  return adjacent / (run.length - 1) >= 0.8;
}

function isRepetition(run: string): boolean {
  if (/(.)\1{3,}/.test(run)) return true;
  // "jkjkjk", "asdasdasd": a unit of 1-3 letters repeated to fill a run of 6+, unless the unit is
  // a consonant-vowel syllable ("hahaha" and "lalala" are words people use).
  const m = /^(.{1,3})\1{2,}(.{0,2})$/.exec(run);
  return m !== null && run.length >= 6 && !/^[^aeiouy][aeiouy]$/.test(m[1]!);
}

/** Switches between letters and digits in a string of only [a-z0-9]: "xk7qpz9w" has 4. */
function letterDigitTransitions(compact: string): number {
  let n = 0;
  for (let i = 1; i < compact.length; i++) if (/\d/.test(compact[i - 1]!) !== /\d/.test(compact[i]!)) n++;
  return n;
}

/** The evidence for the most name-like reading of a run, letting initials explain its edges. */
function runEvidence(run: string, model: CharModel): number {
  const readings = [run];
  if (run.length >= 5) readings.push(run.slice(1), run.slice(0, -1));
  if (run.length >= 6) readings.push(run.slice(2));
  return Math.min(...readings.map((r) => model.randomnessEvidence(r)));
}

export function detectGibberish(localPart: string, model: CharModel = NAME_MODEL): GibberishResult {
  const none: GibberishResult = { gibberish: false, rule: 'none', evidenceBits: null };
  // The +tag is chosen per sign-up and says nothing about the mailbox; quotes are not part of it.
  const base = localPart.toLowerCase().replace(/^"|"$/g, '').split('+')[0] ?? '';
  if (!/[a-z]/.test(base)) return none;
  const compact = base.replace(/[^a-z0-9]/g, '');
  if (letterDigitTransitions(compact) >= 3) return { ...none, gibberish: true, rule: 'letter_digit_mix' };
  if (compact.length >= 8 && /^[0-9a-f]+$/.test(compact) && letterDigitTransitions(compact) >= 2) {
    return { ...none, gibberish: true, rule: 'hex' };
  }
  const runs = base.split(/[^a-z]+/).filter((r) => r.length >= 4);
  if (runs.some(isRepetition)) return { ...none, gibberish: true, rule: 'repetition' };
  if (isKeyboardWalk(compact.replace(/[0-9]/g, ''))) return { ...none, gibberish: true, rule: 'keyboard_walk' };
  if (runs.some((r) => r.length >= 6 && !/[aeiouy]/.test(r))) return { ...none, gibberish: true, rule: 'no_vowel' };
  if (runs.length === 0) return none;
  const evidence = Math.max(...runs.map((r) => runEvidence(r, model)));
  const evidenceBits = Math.round(evidence * 10) / 10;
  return evidence > RANDOM_EVIDENCE_BITS
    ? { gibberish: true, rule: 'char_model', evidenceBits }
    : { ...none, evidenceBits };
}
