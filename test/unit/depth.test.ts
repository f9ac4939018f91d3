/**
 * core/validation tooDeepAt: the first path nested past the limit, as a plain walk of
 * every object finds it (the walk it answers for skips children that hold no object).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tooDeepAt } from '../../src/core/validation.js';

/** The plain walk: every object and array recursed into, keys in their order. */
function reference(value: unknown, depth: number, limit: number): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > limit) return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const found = reference(child, depth + 1, limit);
    if (found) return [key, ...found];
  }
  return undefined;
}

describe('tooDeepAt', () => {
  it('answers what a plain walk answers, for any JSON and limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 9 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 3 }), (value, limit, depth) => {
        expect(tooDeepAt(value, depth, limit)).toEqual(reference(value, depth, limit));
      }),
      { numRuns: 2000, seed: 29 },
    );
  });

  it('names the first path past the limit, through flat siblings', () => {
    const value = { a: { x: 1 }, b: [[1, 2], { c: { d: { e: {} } } }], f: 'g' };
    expect(tooDeepAt(value, 1, 4)).toEqual(['b', 1, 'c', 'd']);
    expect(tooDeepAt(value, 1, 5)).toEqual(['b', 1, 'c', 'd', 'e']);
    expect(tooDeepAt(value, 1, 6)).toBeUndefined();
    expect(tooDeepAt({ a: { b: 1 } }, 1, 1)).toEqual(['a']);
    expect(tooDeepAt([[]], 1, 1)).toEqual([0]);
  });
});
