// Character trigram model of names, trained from the embedded corpus at module load (a few ms).
// Interpolated with bigram and unigram estimates (fixed weights) so unseen trigrams in real names
// ("zcz", "khm") still get some probability, while sequences no naming tradition uses
// ("qxv", "zkj") stay very unlikely.
import { NAME_CORPUS } from './data/name-corpus.ts';

const START = 26;
const END = 27;
const SYMBOLS = 28;
const WEIGHTS = { trigram: 0.6, bigram: 0.3, unigram: 0.08, uniform: 0.02 } as const;
/** Bits per character of a source that types letters uniformly at random (26 letters + end). */
const RANDOM_BITS_PER_CHAR = Math.log2(SYMBOLS - 1);

export interface CharModel {
  /**
   * Evidence, in bits, that a lowercase a-z run was typed at random rather than written as a
   * name: log2 P(run | uniform letters) - log2 P(run | name model), end of word included.
   * Positive means "more likely random"; it grows with length, so long random strings are judged
   * with confidence and short ones rarely cross any threshold. Names mostly score -25 to 0.
   */
  randomnessEvidence(run: string): number;
}

function code(ch: string): number {
  return ch.charCodeAt(0) - 97;
}

export function trainCharModel(words: readonly string[]): CharModel {
  const uni = new Float64Array(SYMBOLS);
  const bi = new Float64Array(SYMBOLS * SYMBOLS);
  const biCtx = new Float64Array(SYMBOLS);
  const tri = new Float64Array(SYMBOLS * SYMBOLS * SYMBOLS);
  const triCtx = new Float64Array(SYMBOLS * SYMBOLS);
  let uniTotal = 0;
  for (const word of words) {
    if (!/^[a-z]+$/.test(word)) continue;
    const seq = [START, START, ...Array.from(word, code), END];
    for (let i = 2; i < seq.length; i++) {
      const [a, b, x] = [seq[i - 2]!, seq[i - 1]!, seq[i]!];
      uni[x]! += 1;
      uniTotal += 1;
      bi[b * SYMBOLS + x]! += 1;
      biCtx[b]! += 1;
      tri[(a * SYMBOLS + b) * SYMBOLS + x]! += 1;
      triCtx[a * SYMBOLS + b]! += 1;
    }
  }

  function probability(a: number, b: number, x: number): number {
    const t = triCtx[a * SYMBOLS + b]!;
    const c = biCtx[b]!;
    const pTri = t > 0 ? tri[(a * SYMBOLS + b) * SYMBOLS + x]! / t : 0;
    const pBi = c > 0 ? bi[b * SYMBOLS + x]! / c : 0;
    const pUni = uniTotal > 0 ? uni[x]! / uniTotal : 0;
    return WEIGHTS.trigram * pTri + WEIGHTS.bigram * pBi + WEIGHTS.unigram * pUni + WEIGHTS.uniform / (SYMBOLS - 1);
  }

  return {
    randomnessEvidence(run: string): number {
      let a = START;
      let b = START;
      let bits = 0;
      for (const x of [...Array.from(run, code), END]) {
        bits += -Math.log2(probability(a, b, x)) - RANDOM_BITS_PER_CHAR;
        a = b;
        b = x;
      }
      return bits;
    },
  };
}

export const NAME_MODEL: CharModel = trainCharModel(NAME_CORPUS);
