import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerText, copyJson, encodeJson, JsonText } from '../../src/core/json.js';
import { SimError, type RouteFamily } from '../../src/core/errors.js';
import { fromMicros, toMicros } from '../../src/core/money.js';
import { pageOf, pageQuery, pageText, paginate } from '../../src/core/pagination.js';
import { ErrorBag, freeObject, int, num, oneOf, parseInput, queryInt, str, strBetween, url } from '../../src/core/validation.js';

/** The SimError that `run` throws; fails the test when it throws nothing or something else. */
function failure(run: () => unknown): SimError {
  try {
    run();
  } catch (error) {
    if (error instanceof SimError) return error;
    throw error;
  }
  throw new Error('expected a SimError, nothing was thrown');
}

/** The shape-B answer of parsing `input` on a management route. */
function rejected(schema: z.ZodType, input: unknown, family: RouteFamily = 'management'): { status: number; body: Record<string, unknown> } {
  const error = failure(() => parseInput(schema, input, family));
  return { status: error.status, body: error.body };
}

/** A shape-B answer with one field and one message. */
function oneError(field: string, message: string) {
  return { status: 422, body: { message, errors: { [field]: [message] } } };
}

const Assistant = z.object({
  name: str(255),
  max_duration: int(20, 1200).optional(),
  record: z.boolean().optional(),
  mode: oneOf(['inbound', 'outbound']).optional(),
});

describe('parseInput', () => {
  it('returns the parsed data when the input is valid', () => {
    expect(parseInput(Assistant, { name: 'Sales', max_duration: 300, record: true, mode: 'outbound' }, 'management')).toEqual({
      name: 'Sales',
      max_duration: 300,
      record: true,
      mode: 'outbound',
    });
  });

  it('answers a missing field with "field is required"', () => {
    expect(rejected(Assistant, {})).toEqual(oneError('name', 'The name field is required.'));
  });

  it('answers a string over the limit with "may not be greater than"', () => {
    expect(rejected(Assistant, { name: 'x'.repeat(256) })).toEqual(oneError('name', 'The name may not be greater than 255 characters.'));
  });

  it('accepts a string exactly at the limit', () => {
    expect(parseInput(Assistant, { name: 'x'.repeat(255) }, 'management').name).toHaveLength(255);
  });

  it('answers a number where a string belongs with "must be a string"', () => {
    expect(rejected(Assistant, { name: 42 })).toEqual(oneError('name', 'The name must be a string.'));
  });

  it.each([19, 1201, -5])('answers max_duration %d with the between message', (value) => {
    expect(rejected(Assistant, { name: 'a', max_duration: value })).toEqual(oneError('max_duration', 'The max duration must be between 20 and 1200.'));
  });

  it.each([20, 1200])('accepts max_duration %d at the edge', (value) => {
    expect(parseInput(Assistant, { name: 'a', max_duration: value }, 'management').max_duration).toBe(value);
  });

  it('answers a decimal where an integer belongs with "must be an integer"', () => {
    expect(rejected(Assistant, { name: 'a', max_duration: 20.5 })).toEqual(oneError('max_duration', 'The max duration must be an integer.'));
  });

  it('answers a string where an integer belongs with "must be an integer"', () => {
    expect(rejected(Assistant, { name: 'a', max_duration: '300' })).toEqual(oneError('max_duration', 'The max duration must be an integer.'));
  });

  it('answers a non-boolean with "must be true or false"', () => {
    expect(rejected(Assistant, { name: 'a', record: 'yes' })).toEqual(oneError('record', 'The record field must be true or false.'));
  });

  it('answers a value outside an enum with "The selected ... is invalid."', () => {
    expect(rejected(Assistant, { name: 'a', mode: 'sideways' })).toEqual(oneError('mode', 'The selected mode is invalid.'));
  });

  it('answers a missing required enum with "field is required"', () => {
    expect(rejected(z.object({ mode: oneOf(['inbound', 'outbound']) }), {})).toEqual(oneError('mode', 'The mode field is required.'));
  });

  it('keys a nested error by its dotted path and names it in the message', () => {
    const schema = z.object({ tools: z.array(z.object({ type: oneOf(['function', 'webhook']) })) });
    expect(rejected(schema, { tools: [{ type: 'function' }, { type: 'sql' }] })).toEqual(oneError('tools.1.type', 'The selected tools.1.type is invalid.'));
  });

  it('answers a missing nested field with "field is required" at its path', () => {
    const schema = z.object({ tools: z.array(z.object({ type: oneOf(['function', 'webhook']) })) });
    expect(rejected(schema, { tools: [{}] })).toEqual(oneError('tools.0.type', 'The tools.0.type field is required.'));
  });

  it('keeps underscores in the key and writes spaces in the message of a nested field', () => {
    const schema = z.object({ tools: z.array(z.object({ tool_name: str(5) })) });
    expect(rejected(schema, { tools: [{ tool_name: 'toolong' }] })).toEqual(oneError('tools.0.tool_name', 'The tools.0.tool name may not be greater than 5 characters.'));
  });

  it('answers a non-array where an array belongs with "must be an array"', () => {
    const schema = z.object({ tools: z.array(z.string()) });
    expect(rejected(schema, { tools: 'x' })).toEqual(oneError('tools', 'The tools must be an array.'));
  });

  it('answers an invalid url with "format is invalid"', () => {
    expect(rejected(z.object({ webhook_url: url() }), { webhook_url: 'not a url' })).toEqual(oneError('webhook_url', 'The webhook url format is invalid.'));
  });

  it('answers a url with a scheme other than http(s) with "format is invalid"', () => {
    expect(rejected(z.object({ webhook_url: url() }), { webhook_url: 'ftp://example.com/hook' })).toEqual(oneError('webhook_url', 'The webhook url format is invalid.'));
  });

  it('accepts an https url', () => {
    expect(parseInput(z.object({ webhook_url: url() }), { webhook_url: 'https://example.com/hook?x=1' }, 'management')).toEqual({ webhook_url: 'https://example.com/hook?x=1' });
  });

  it('answers a url over 2048 characters with "may not be greater than 2048 characters"', () => {
    const long = `https://example.com/${'a'.repeat(2029)}`;
    expect(long).toHaveLength(2049);
    expect(rejected(z.object({ webhook_url: url() }), { webhook_url: long })).toEqual(oneError('webhook_url', 'The webhook url may not be greater than 2048 characters.'));
  });

  it('accepts a url of exactly 2048 characters', () => {
    const long = `https://example.com/${'a'.repeat(2028)}`;
    expect(parseInput(z.object({ webhook_url: url() }), { webhook_url: long }, 'management').webhook_url).toHaveLength(2048);
  });

  it.each(['a', 'x'.repeat(11)])('answers %j outside strBetween(2, 10) with the between-characters message', (value) => {
    expect(rejected(z.object({ title: strBetween(2, 10) }), { title: value })).toEqual(oneError('title', 'The title must be between 2 and 10 characters.'));
  });

  it.each(['ab', 'x'.repeat(10)])('accepts %j at the edge of strBetween(2, 10)', (value) => {
    expect(parseInput(z.object({ title: strBetween(2, 10) }), { title: value }, 'management').title).toBe(value);
  });

  it('answers a number outside num(0, 1) with the between message', () => {
    expect(rejected(z.object({ temperature: num(0, 1) }), { temperature: 1.5 })).toEqual(oneError('temperature', 'The temperature must be between 0 and 1.'));
  });

  it('accepts a decimal inside num(0, 1)', () => {
    expect(parseInput(z.object({ temperature: num(0, 1) }), { temperature: 0.7 }, 'management').temperature).toBe(0.7);
  });

  it('answers text where a number belongs with "must be a number"', () => {
    expect(rejected(z.object({ temperature: num(0, 1) }), { temperature: 'warm' })).toEqual(oneError('temperature', 'The temperature must be a number.'));
  });

  it('answers an integer under a lone minimum with "must be at least"', () => {
    expect(rejected(z.object({ page: int(1) }), { page: 0 })).toEqual(oneError('page', 'The page must be at least 1.'));
  });

  it('answers an integer over a lone maximum with "may not be greater than"', () => {
    expect(rejected(z.object({ count: int(undefined, 10) }), { count: 11 })).toEqual(oneError('count', 'The count may not be greater than 10.'));
  });
});

describe('shape B message', () => {
  it('adds " (and N more errors)" to the first message', () => {
    const result = rejected(z.object({ name: str(255), mode: oneOf(['a', 'b']), record: z.boolean() }), {});
    expect(result).toEqual({
      status: 422,
      body: {
        message: 'The name field is required. (and 2 more errors)',
        errors: {
          name: ['The name field is required.'],
          mode: ['The mode field is required.'],
          record: ['The record field is required.'],
        },
      },
    });
  });

  it('adds " (and 1 more error)" when there is one other error', () => {
    const result = rejected(z.object({ name: str(255), mode: oneOf(['a', 'b']) }), { name: 5 });
    expect(result.body.message).toBe('The name must be a string. (and 1 more error)');
  });
});

describe('validation failure by route family', () => {
  it('answers a chat route with 422 {status:false, error}', () => {
    expect(rejected(Assistant, {}, 'chat')).toEqual({ status: 422, body: { status: false, error: 'The name field is required.' } });
  });

  it('answers a messaging route with 422 {success:false, error, error_code}', () => {
    expect(rejected(Assistant, {}, 'messaging')).toEqual({
      status: 422,
      body: { success: false, error: 'The name field is required.', error_code: 'VALIDATION_ERROR' },
    });
  });

  it('answers a chat route with only the first of several errors', () => {
    expect(rejected(Assistant, { name: 1, record: 'x' }, 'chat').body).toEqual({ status: false, error: 'The name must be a string.' });
  });
});

describe('ErrorBag', () => {
  it('starts empty and does not throw', () => {
    const bag = new ErrorBag();
    expect(bag.empty).toBe(true);
    expect(() => bag.throwIfAny()).not.toThrow();
  });

  it('throws shape B with every message added', () => {
    const bag = new ErrorBag().add('voice_id', 'The selected voice id is invalid.').add('language', 'The selected language is invalid.');
    expect(bag.empty).toBe(false);
    const error = failure(() => bag.throwIfAny());
    expect(error.status).toBe(422);
    expect(error.body).toEqual({
      message: 'The selected voice id is invalid. (and 1 more error)',
      errors: { voice_id: ['The selected voice id is invalid.'], language: ['The selected language is invalid.'] },
    });
  });

  it('keeps a message added twice once', () => {
    const bag = new ErrorBag().add('name', 'Taken.').add('name', 'Taken.');
    expect(bag.errors).toEqual({ name: ['Taken.'] });
  });

  it('fills a rule message for a field', () => {
    const bag = new ErrorBag().rule('voice_id', 'exists').rule('max_tokens', 'between', { min: 1, max: 4096 });
    expect(bag.errors).toEqual({
      voice_id: ['The selected voice id is invalid.'],
      max_tokens: ['The max tokens must be between 1 and 4096.'],
    });
  });

  it('throws in the family shape it is asked for', () => {
    const bag = new ErrorBag().rule('message', 'required');
    expect(failure(() => bag.throwIfAny('messaging')).body).toEqual({ success: false, error: 'The message field is required.', error_code: 'VALIDATION_ERROR' });
  });
});

describe('freeObject', () => {
  const Vars = z.object({ variables: freeObject() });

  it('keeps a "__proto__" key from JSON as an own data property', () => {
    const input = JSON.parse('{"variables":{"__proto__":{"polluted":true},"name":"Ada"}}') as unknown;
    const { variables } = parseInput(Vars, input, 'management');
    expect(Object.hasOwn(variables, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(variables, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
    expect((variables as { polluted?: unknown }).polluted).toBeUndefined();
    expect(variables.name).toBe('Ada');
  });

  it('does not pollute Object.prototype', () => {
    const input = JSON.parse('{"variables":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}') as unknown;
    const { variables } = parseInput(Vars, input, 'management');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.hasOwn(variables, 'constructor')).toBe(true);
  });

  it('returns a copy that does not share objects with the input', () => {
    const input = { variables: { nested: { n: 1 } } };
    const { variables } = parseInput(Vars, input, 'management');
    input.variables.nested.n = 2;
    expect(variables).toEqual({ nested: { n: 1 } });
  });

  it.each([[[1, 2]], ['text'], [null]])('answers %j with "must be an object"', (value) => {
    expect(rejected(Vars, { variables: value })).toEqual(oneError('variables', 'The variables must be an object.'));
  });
});

describe('queryInt', () => {
  const Query = z.object({ per_page: queryInt() });

  it('turns digits into a number', () => {
    expect(parseInput(Query, { per_page: '15' }, 'management')).toEqual({ per_page: 15 });
  });

  it('turns a negative number in digits into a number', () => {
    expect(parseInput(Query, { per_page: '-3' }, 'management')).toEqual({ per_page: -3 });
  });

  it.each(['abc', '1.5', '', '1e3', '0x10'])('answers %j with "must be an integer"', (value) => {
    expect(rejected(Query, { per_page: value })).toEqual(oneError('per_page', 'The per page must be an integer.'));
  });
});

describe('money', () => {
  it('turns a cent into 10,000 micros', () => {
    expect(toMicros(0.01)).toBe(10_000);
  });

  it('sums 10,000 charges of 0.01 USD to exactly 100 USD', () => {
    let micros = 0;
    for (let i = 0; i < 10_000; i++) micros += toMicros(0.01);
    expect(micros).toBe(100_000_000);
    expect(fromMicros(micros)).toBe(100);
  });

  it('rounds away float noise when converting to micros', () => {
    expect(toMicros(0.1 + 0.2)).toBe(300_000);
  });

  it('turns micros back into USD with six decimals', () => {
    expect(fromMicros(1_234_567)).toBe(1.234567);
  });
});

describe('paginate', () => {
  const items = [1, 2, 3, 4, 5];

  it('returns one page with the totals', () => {
    expect(paginate(items, 2, 2, (n) => `#${n}`)).toEqual({ data: ['#3', '#4'], current_page: 2, per_page: 2, total: 5, last_page: 3 });
  });

  it('returns a short last page', () => {
    expect(paginate(items, 3, 2, String).data).toEqual(['5']);
  });

  it('returns an empty page past the end with the totals', () => {
    expect(paginate(items, 9, 2, String)).toEqual({ data: [], current_page: 9, per_page: 2, total: 5, last_page: 3 });
  });

  it('reports last_page 1 for an empty list', () => {
    expect(paginate([], 1, 15, String)).toEqual({ data: [], current_page: 1, per_page: 15, total: 0, last_page: 1 });
  });

  it('reports an exact number of pages when the total divides evenly', () => {
    expect(paginate([1, 2, 3, 4], 1, 2, String).last_page).toBe(2);
  });
});

describe('pageQuery', () => {
  const query = pageQuery(15);

  it('defaults to page 1 and the route page size', () => {
    expect(parseInput(query, {}, 'management')).toEqual({ page: 1, per_page: 15 });
  });

  it.each([
    ['1', 1],
    ['100', 100],
  ])('accepts per_page %s at the edge', (perPage, expected) => {
    expect(parseInput(query, { per_page: perPage }, 'management')).toEqual({ page: 1, per_page: expected });
  });

  it.each(['0', '101'])('answers per_page %s with the between message', (perPage) => {
    expect(rejected(query, { per_page: perPage })).toEqual(oneError('per_page', 'The per page must be between 1 and 100.'));
  });

  it('answers page 0 with "must be at least 1"', () => {
    expect(rejected(query, { page: '0' })).toEqual(oneError('page', 'The page must be at least 1.'));
  });

  it('reads a page number from the query string', () => {
    expect(parseInput(query, { page: '3', per_page: '20' }, 'management')).toEqual({ page: 3, per_page: 20 });
  });

  it('answers a non-numeric page with "must be an integer"', () => {
    expect(rejected(query, { page: 'two' })).toEqual(oneError('page', 'The page must be an integer.'));
  });
});

describe('copyJson', () => {
  it('copies nested objects and arrays, sharing nothing', () => {
    const value = { a: [1, { b: 'x' }], c: null, d: { e: true } };
    const copy = copyJson(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
    expect(copy.d).not.toBe(value.d);
  });

  it('keeps a __proto__ key as data, not as the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    const copy = copyJson(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":1}}');
  });
});

describe('encodeJson', () => {
  it('writes JSON data as JSON.stringify does, members it leaves out included', () => {
    const value = { a: [1, 'x', null, true, undefined, () => 1], b: undefined, c: { d: -0, e: 1.5e300, f: 'é"\n\u0000\ud800' }, 2: 'two', g: [] };
    expect(encodeJson(value)).toBe(JSON.stringify(value));
    expect(encodeJson(JSON.parse('{"__proto__":{"p":1}}'))).toBe('{"__proto__":{"p":1}}');
    for (const primitive of ['s', 0, null, false]) expect(encodeJson(primitive)).toBe(JSON.stringify(primitive));
  });

  it('splices a JsonText as it is', () => {
    expect(encodeJson({ data: [new JsonText('{"id":1}'), new JsonText('[]')], total: 2 })).toBe('{"data":[{"id":1},[]],"total":2}');
  });
});

describe('answerText', () => {
  it('is the text of an encoded body and JSON.stringify of any other', () => {
    expect(answerText(new JsonText('{"a":1}'))).toBe('{"a":1}');
    expect(answerText({ a: [1] })).toBe('{"a":[1]}');
  });
});

describe('pageText', () => {
  const rows = [{ id: 3 }, { id: 2 }];
  const record = (row: { id: number }) => ({ id: row.id, name: `#${row.id}` });

  it('writes the page pageOf answers, on both wires', () => {
    for (const on of [undefined, { wire: 'spec' as const, path: '/user/calls' }, { wire: 'live' as const, path: 'http://127.0.0.1/api/user/calls' }]) {
      for (const [page, total] of [[1, 2], [2, 40], [9, 2]] as const) {
        const text = pageText({ rows, total }, page, 2, (row) => JSON.stringify(record(row)), on);
        expect(text.text).toBe(JSON.stringify(pageOf({ rows, total }, page, 2, record, on)));
      }
    }
  });
});
