/** Money is kept in integer micro-dollars so sums never drift; the wire shows USD rounded to 6 decimals. */

/**
 * The largest amount an input may give (a balance, a call's cost): 1,000,000,000 USD, 1e15
 * micro-dollars, below 2^53, so every stored amount is a safe integer (docs/control-api.md).
 */
export const MAX_USD = 1_000_000_000;

/** @example toMicros(0.01) // 10000 */
export function toMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** @example fromMicros(100_000_000) // 100 */
export function fromMicros(micros: number): number {
  return Math.round(micros) / 1_000_000;
}
