/**
 * Counts of texts by the substrings they hold, for partial-match filters whose total must
 * be exact without testing every text: a phone number of 12 characters holds at most 78
 * substrings, so counting them once per number answers "how many hold `needle`" in one
 * lookup, however many texts match.
 */

/**
 * How many of the counted texts hold each substring of up to `maxLength` characters; a
 * text holding a substring twice counts once for it.
 * @example
 * const counts = new SubstringCounts(16)
 * counts.add('+15551230001', 3) // three calls to this number
 * counts.add('+15559870002')
 * counts.count('555') // 4
 * counts.count('123') // 3
 */
export class SubstringCounts {
  private readonly counts = new Map<string, number>();
  private texts = 0;

  constructor(readonly maxLength: number) {}

  /** Counts `text` `times` more (a negative `times` takes it away). */
  add(text: string, times = 1): void {
    this.texts += times;
    for (let start = 0; start < text.length; start++) {
      const end = Math.min(text.length, start + this.maxLength);
      for (let stop = start + 1; stop <= end; stop++) {
        const part = text.slice(start, stop);
        // Only the first occurrence of a substring counts the text.
        if (text.indexOf(part) < start) continue;
        const n = (this.counts.get(part) ?? 0) + times;
        if (n === 0) this.counts.delete(part);
        else this.counts.set(part, n);
      }
    }
  }

  /** How many counted texts hold `needle`; undefined for a needle longer than `maxLength` (not counted). */
  count(needle: string): number | undefined {
    if (needle.length > this.maxLength) return undefined;
    if (needle === '') return this.texts;
    return this.counts.get(needle) ?? 0;
  }
}
