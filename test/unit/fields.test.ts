/**
 * Field kinds (core/fields.ts), the checks a restored snapshot's rows go through: each
 * kind's message, where a problem is (`.plan.max_tools`, `[2]`), and the generated check
 * of a record agreeing with the plain one a page without code generation falls back to.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boolean, count, exactly, id, int, json, list, mapOf, nullable, number, oneOf, optional, record, string, time, type FieldKind } from '../../src/core/fields.js';
import { LATEST_STATE_TIME } from '../../src/core/time.js';

/** Values of every JSON type and the edges of the numeric kinds. */
const SAMPLES: unknown[] = [
  undefined, null, true, false, '', 'x', 'a', 0, -0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53 - 1), -(2 ** 53), 1e308, Number.NaN,
  LATEST_STATE_TIME, LATEST_STATE_TIME + 1, [], [1], {}, { a: 1 },
];

const SIMPLE: [string, FieldKind<unknown>][] = [
  ['id', id],
  ['count', count],
  ['int', int],
  ['number', number],
  ['string', string],
  ['boolean', boolean],
  ['json', json],
  ['time', time],
  ['oneOf', oneOf(['a', 'x'])],
  ['exactly', exactly('x')],
  ['nullable(id)', nullable(id)],
  ['optional(string)', optional(string)],
  ['optional(nullable(time))', optional(nullable(time))],
] as [string, FieldKind<unknown>][];

describe('field kinds', () => {
  it.each(SIMPLE)('%s: its inline expression accepts exactly what its check accepts', (_name, kind) => {
    const inline = new Function('x', `return ${kind.inline!('x')};`) as (x: unknown) => boolean;
    for (const value of SAMPLES) expect([value, inline(value)]).toEqual([value, kind.check(value) === undefined]);
  });

  it.each([
    [id, 0, 'must be a whole number from 1 to 9007199254740991'],
    [count, -1, 'must be a whole number from 0 to 9007199254740991'],
    [int, 2 ** 53, 'must be a whole number from -9007199254740991 to 9007199254740991'],
    [number, Number.NaN, 'must be a finite number'],
    [time, LATEST_STATE_TIME + 1, 'must be a time in whole milliseconds from 0 (1970-01-01T00:00:00Z) to 253402300799999 (9999-12-31T23:59:59.999Z)'],
    [oneOf(['draft', 'stopped']), 'paused', 'must be one of draft, stopped'],
    [exactly(true), false, 'must be true'],
    [json, [], 'must be an object'],
  ] as [FieldKind<unknown>, unknown, string][])('refuses %#: %j with its message', (kind, value, message) => {
    expect(kind.check(value)).toStrictEqual({ at: '', message });
  });

  it('names the item of a list and the key of a map', () => {
    expect(list(id).check([1, 2, 0])).toStrictEqual({ at: '[2]', message: 'must be a whole number from 1 to 9007199254740991' });
    expect(mapOf(string).check({ accept: 'json', retries: 3 })).toStrictEqual({ at: '.retries', message: 'must be a string' });
  });
});

interface Plan {
  max_tools: number;
  note?: string | null;
}
interface Row {
  id: number;
  plan: Plan;
  tags: string[];
}

/** The row's kind, its nested record included, built anew. */
const rowKind = () => record<Row>({ id, plan: record<Plan>({ max_tools: count, note: optional(nullable(string)) }), tags: list(string) });
const CASES: [unknown, { at: string; message: string } | undefined][] = [
  [{ id: 1, plan: { max_tools: 2 }, tags: [] }, undefined],
  [{ id: 1, plan: { max_tools: 2, note: null }, tags: ['a'], extra: true }, undefined],
  [{ id: 1, tags: [] }, { at: '.plan', message: 'is required' }],
  [{ id: 1, plan: { max_tools: -1 }, tags: [] }, { at: '.plan.max_tools', message: 'must be a whole number from 0 to 9007199254740991' }],
  [{ id: 1, plan: { max_tools: 1, note: 5 }, tags: [] }, { at: '.plan.note', message: 'must be a string' }],
  [{ id: 1, plan: { max_tools: 1 }, tags: ['a', 1] }, { at: '.tags[1]', message: 'must be a string' }],
  [[], { at: '', message: 'must be an object' }],
  [null, { at: '', message: 'must be an object' }],
];

describe('record', () => {
  afterEach(() => vi.unstubAllGlobals());

  it.each(CASES)('checks %j with the path of what is wrong', (value, problem) => {
    expect(rowKind().check(value)).toStrictEqual(problem);
  });

  it.each(CASES)('checks %j the same where code cannot be generated', (value, problem) => {
    const refused = vi.fn(() => {
      throw new EvalError('Code generation from strings disallowed for this context');
    });
    vi.stubGlobal('Function', refused);
    // A record's check is generated on its first use (core/fields.ts): that is where generation is refused.
    const result = rowKind().check(value);
    vi.unstubAllGlobals();
    expect(refused).toHaveBeenCalled();
    expect(result).toStrictEqual(problem);
  });
});

describe('record: its generated check', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is generated once, on the first check, for the record and for a kind that holds it', () => {
    const RealFunction = Function;
    // A function, not an arrow: the record calls it with `new`, which an arrow refuses (the check would then fall back to the loop).
    const generated = vi.fn(function (...args: string[]) {
      return new RealFunction(...args);
    });
    vi.stubGlobal('Function', generated);
    const plan = record<{ max_tools: number }>({ max_tools: count });
    const held = nullable(plan);
    expect(generated).not.toHaveBeenCalled();
    for (let i = 0; i < 5; i++) {
      expect(held.check({ max_tools: 1 })).toBeUndefined();
      expect(plan.check({ max_tools: -1 })).toStrictEqual({ at: '.max_tools', message: 'must be a whole number from 0 to 9007199254740991' });
    }
    expect(generated).toHaveBeenCalledTimes(1);
    expect(generated.mock.results).toStrictEqual([{ type: 'return', value: expect.any(Function) }]);
  });
});
