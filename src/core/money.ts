/** Money is kept in integer micro-dollars so sums never drift; the wire shows USD rounded to 6 decimals. */

/** @example toMicros(0.01) // 10000 */
export function toMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** @example fromMicros(100_000_000) // 100 */
export function fromMicros(micros: number): number {
  return Math.round(micros) / 1_000_000;
}
