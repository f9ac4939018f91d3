/**
 * core/validation tooDeepAt: the first path nested past the limit, as a plain walk of
 * every object finds it (the walk it answers for skips children that hold no object);
 * scenario/depth collectionTooDeep: the same limit on a YAML text's tokens, before composing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parser, stringify } from 'yaml';
import { tooDeepAt } from '../../src/core/validation.js';
import { collectionTooDeep } from '../../src/scenario/depth.js';

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

describe('collectionTooDeep', () => {
  it('finds nesting past the limit in YAML text exactly where tooDeepAt finds it in the data, in block and flow style', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 9 }), fc.integer({ min: 1, max: 10 }), fc.boolean(), (value, limit, flow) => {
        const text = flow ? JSON.stringify(value) : stringify(value);
        expect(collectionTooDeep([...new Parser().parse(text)], limit) >= 0).toBe(tooDeepAt(value, 1, limit) !== undefined);
      }),
      { numRuns: 1000, seed: 29 },
    );
  });

  it('answers the offset of the first collection past the limit, keys and values alike', () => {
    const at = (text: string, limit: number) => collectionTooDeep([...new Parser().parse(text)], limit);
    expect(at('a:\n  b: 1\n', 1)).toBe(5);
    expect(at('a:\n  b: 1\n', 2)).toBe(-1);
    expect(at('? [x]\n: 1\n', 1)).toBe(2);
    expect(at('- - - 1\n', 2)).toBe(4);
    expect(at('a: 1\n---\nb: [c]\n', 1)).toBe(12);
    expect(at('', 1)).toBe(-1);
  });

  it('walks block nesting far past where a recursive walk overflows the stack', () => {
    const text = `a:\n  ${'- '.repeat(100_000)}1\n`;
    const tokens = [...new Parser().parse(text)];
    expect(collectionTooDeep(tokens, 100_001)).toBe(-1);
    expect(collectionTooDeep(tokens, 100_000)).toBe(text.lastIndexOf('-'));
  });
});
