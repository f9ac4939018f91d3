/** Input as the live platform reads it (live-platform G.3 item 3): src/core/input.ts. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseTrimmed, trimInput, trimQuery } from '../../src/core/input.js';
import { SimError } from '../../src/core/errors.js';

describe('trimInput', () => {
  it('trims strings at every depth and reads an empty one as null', () => {
    expect(trimInput({ name: '  Sales ', note: ' \t', tags: [' a', 'b ', ''], deep: { x: '\nx\n' } })).toStrictEqual({
      name: 'Sales',
      note: null,
      tags: ['a', 'b', null],
      deep: { x: 'x' },
    });
  });

  it('answers the very value when nothing changes, and never changes what it was given', () => {
    const body = { name: 'Sales', tags: ['a'], n: 1, flag: false, nothing: null };
    expect(trimInput(body)).toBe(body);
    const padded = { keep: { a: 'a' }, change: { b: ' b ' } };
    const out = trimInput(padded) as typeof padded;
    expect(padded.change.b).toBe(' b ');
    expect(out.keep).toBe(padded.keep);
    expect(out.change).not.toBe(padded.change);
  });

  it('keeps a __proto__ key as an own data property', () => {
    const out = trimInput(JSON.parse('{"__proto__": {"polluted": " yes "}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toStrictEqual({ polluted: 'yes' });
  });

  it('walks no class instance (an uploaded file)', () => {
    class File {
      name = ' a.pdf ';
    }
    const file = new File();
    expect((trimInput({ file }) as { file: File }).file).toBe(file);
  });

  it('lists the paths of the strings it emptied', () => {
    const emptied: (string | number)[][] = [];
    trimInput({ a: '', b: [' ', 'x'], c: { d: '  ' } }, emptied);
    expect(emptied).toStrictEqual([['a'], ['b', 0], ['c', 'd']]);
  });
});

describe('trimQuery', () => {
  it('trims values and leaves out the empty ones, items of lists included', () => {
    expect(trimQuery({ customer_phone: ' 49123456789', page: ' ', ids: [' 1', '', '2'] })).toStrictEqual({ customer_phone: '49123456789', ids: ['1', '2'] });
  });

  it('answers the very query when nothing changes', () => {
    const query = { page: '2', ids: ['1'] };
    expect(trimQuery(query)).toBe(query);
  });
});

describe('parseTrimmed', () => {
  const schema = z.object({ name: z.string().min(1), note: z.string().nullable().optional(), title: z.string().optional() });

  it('clears a nullable field, and validates one that takes no null as the empty string it was', () => {
    expect(parseTrimmed(schema, { name: ' Ann ', note: ' ' }, 'management')).toStrictEqual({ name: 'Ann', note: null });
    expect(parseTrimmed(schema, { name: 'Ann', title: '  ' }, 'management')).toStrictEqual({ name: 'Ann', title: '' });
    expect(() => parseTrimmed(z.object({ title: z.string().min(1).optional() }), { title: ' ' }, 'management')).toThrow('The title field is required.');
  });

  it('reads a required field sent empty as missing, with the required rule\'s text', () => {
    try {
      parseTrimmed(schema, { name: '   ' }, 'management');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SimError);
      expect((error as SimError).body).toStrictEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    }
  });

  it('keeps the refusal of a field that is not empty', () => {
    expect(() => parseTrimmed(schema, { name: 5, title: ' ' }, 'management')).toThrow('The name must be a string.');
  });

  it('puts an emptied item of a list back as an empty string when the list takes no null', () => {
    expect(() => parseTrimmed(z.object({ tags: z.array(z.string().min(1)) }), { tags: ['a', ' '] }, 'management')).toThrow('The tags.1 field is required.');
  });
});
