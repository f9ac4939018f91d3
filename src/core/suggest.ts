/** "Did you mean": the known word closest to a mistyped one, when one is close enough. */

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word` (letter case ignored), if it is within a third of the
 * word's length in edits (at least one edit, at most three); undefined otherwise.
 * @example closest('outcome', ['name', 'outcomes', 'steps']) // 'outcomes'
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d <= limit && (best === undefined || d < best.d)) best = { candidate, d };
  }
  return best?.candidate;
}

/**
 * `; did you mean <word>?` with the candidate closest to `word`, else `''` (a message
 * appends it to the sentence that names the unknown word). `show` writes the candidate
 * as the message quotes its words.
 * @example didYouMean('outcome', ['name', 'outcomes'], (w) => `\`${w}\``) // '; did you mean `outcomes`?'
 */
export function didYouMean(word: string, candidates: Iterable<string>, show: (candidate: string) => string = (candidate) => candidate): string {
  const near = closest(word, candidates);
  return near === undefined ? '' : `; did you mean ${show(near)}?`;
}
