/**
 * `createSimulator` options that set the clock, the generator and the accounts (issue 13:
 * every input either works or gets one clear error): `accounts` as `POST /__sim/accounts`
 * takes them, closed keys included; `startAt` within the clock range
 * (1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z) and `seed` from 0 to 2147483647, as
 * `POST /__sim/reset`, `--start`/`--seed` and scenarios take them; `catalog` as `PUT
 * /__sim/catalog` takes it. Anything else is a RangeError naming the option (for an account
 * or a catalog, the control API's 422 SimError, its message naming the option and the path,
 * issue 34), thrown before a simulator exists.
 */
import { describe, expect, it } from 'vitest';
import { SimError } from '../src/core/errors.js';
import { CLOCK_RANGE } from '../src/core/time.js';
import { createSimulator, type SimulatorOptions } from '../src/simulator.js';
import { simRefusal } from './support/expect.js';

const OUT_OF_RANGE = 'startAt must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (whole milliseconds)';

describe('createSimulator({ startAt })', () => {
  it.each([
    ['1970-01-01T00:00:00Z', CLOCK_RANGE.min],
    ['9999-01-01T00:00:00Z', CLOCK_RANGE.max],
    [CLOCK_RANGE.max, CLOCK_RANGE.max],
    [new Date(0), 0],
  ])('starts the clock at %s, an edge of the range', (startAt, ms) => {
    expect(createSimulator({ startAt }).clock.now()).toBe(ms);
  });

  it.each([
    ['+275760-09-13T00:00:00Z', '+275760-09-13T00:00:00Z'],
    ['9999-01-01T00:00:00.001Z', '9999-01-01T00:00:00.001Z'],
    ['1969-12-31T23:59:59Z', '1969-12-31T23:59:59Z'],
    [-1, '-1'],
    [1.5, '1.5'],
    [8.64e15, '8640000000000000'],
    [new Date(Number.NaN), 'NaN'],
  ])('refuses startAt %s with a RangeError naming it', (startAt, shown) => {
    expect(() => createSimulator({ startAt })).toThrow(new RangeError(`${OUT_OF_RANGE}: ${shown}`));
  });

  it('refuses a reset to a start beyond the range in-process, and changes nothing', () => {
    const sim = createSimulator({ startAt: '2026-03-02T09:00:00Z' });
    const before = JSON.stringify(sim.snapshot());
    expect(() => sim.reset({ seed: 5, start: '+275760-09-12T00:00:00Z' })).toThrow(new RangeError('start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (whole milliseconds): +275760-09-12T00:00:00Z'));
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });
});

describe('createSimulator({ seed })', () => {
  it.each([0, 2147483647])('takes seed %d, an edge of the range', (seed) => {
    expect(createSimulator({ seed }).seed).toBe(seed);
  });

  it.each([-1, 2147483648, 1.5, Number.NaN])('refuses seed %d with a RangeError', (seed) => {
    expect(() => createSimulator({ seed })).toThrow(new RangeError(`seed must be a whole number from 0 to 2147483647: ${seed}`));
  });
});

describe('createSimulator({ accounts })', () => {
  it('creates the accounts it is given', () => {
    const sim = createSimulator({ accounts: [{ api_key: 'sim_a_key', balance: 5 }] });
    expect(sim.control.accounts.list().data).toMatchObject([{ id: 1, api_key: 'sim_a_key', balance: 5 }]);
  });

  it("refuses an account key it does not have, as the control API does, naming the closest", () => {
    expect(() => createSimulator({ accounts: [{ api_key: 'sim_a_key', balanse: 5 } as never] })).toThrow(
      expect.objectContaining({ status: 422, body: { message: 'The balanse field is not allowed; did you mean balance?', errors: { balanse: ['The balanse field is not allowed; did you mean balance?'] } } }),
    );
  });
});

/** What `createSimulator(options)` throws; a simulator made fails the test. */
function refusal(options: SimulatorOptions): Error {
  try {
    createSimulator(options);
  } catch (error) {
    return error as Error;
  }
  throw new Error('createSimulator took the options');
}

const BAD_ACCOUNT = refusal({ accounts: [{ api_key: 'sim_a_key' }, { api_key: 'sim_b_key', balanse: 5 } as never] });
/** A voice of the spec catalog's language 5 (German) and synthesizer 1. */
const MINA = { id: 9001, name: 'Mina', language_id: 5, gender: 'female', preview_url: null, accent: null, age: 'young', synthesizer_provider_id: 1 };

describe('createSimulator({ accounts }) refusals', () => {
  it("throws POST /__sim/accounts's SimError, its message naming the option and the account's path", () => {
    expect(BAD_ACCOUNT).toBeInstanceOf(SimError);
    expect(BAD_ACCOUNT.name).toBe('Error');
    expect(BAD_ACCOUNT.message).toBe('accounts.1.balanse: The balanse field is not allowed; did you mean balance?');
  });
});

describe('inputs that are no object', () => {
  it('refuses an account that is no object, naming it as the input', () => {
    const error = refusal({ accounts: [5 as never] });
    expect(error).toBeInstanceOf(SimError);
    expect(error.message).toBe('accounts.0: The input must be an object.');
    expect(error).toMatchObject({ status: 422, body: { message: 'The input must be an object.', errors: { '': ['The input must be an object.'] } } });
  });

  it('refuses an in-process control call given no object, as the input, changing nothing', async () => {
    const sim = createSimulator();
    const before = JSON.stringify(sim.snapshot());
    expect(await simRefusal(() => sim.control.phoneNumbers.add('+14155550100' as never))).toStrictEqual({
      status: 422,
      body: { message: 'The input must be an object.', errors: { '': ['The input must be an object.'] } },
    });
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });
});

describe('createSimulator({ catalog }) refusals, as a bad account is refused', () => {
  it("throws PUT /__sim/catalog's SimError for a document that fails the schema, its message naming the option and the path", () => {
    const error = refusal({ catalog: { merge: 'extend', voices: [{ ...MINA, language_id: 'de' as never }] } });
    expect(error).toBeInstanceOf(SimError);
    expect(error.constructor).toBe(BAD_ACCOUNT.constructor);
    expect(error.name).toBe(BAD_ACCOUNT.name);
    expect(error.message).toBe('catalog.voices.0.language_id: The voices.0.language id must be an integer.');
    expect(error).toMatchObject({ status: 422, body: { errors: { 'voices.0.language_id': ['The voices.0.language id must be an integer.'] } } });
  });

  it('throws the same for ids that clash in a table', () => {
    const error = refusal({ catalog: { voices: [MINA, MINA] } });
    expect(error.constructor).toBe(BAD_ACCOUNT.constructor);
    expect(error.name).toBe(BAD_ACCOUNT.name);
    expect(error.message).toBe('catalog.voices.1.id: The voices.1.id has the id of an entry before it (ids are unique in a table).');
  });

  it('names the first problem in the message and keeps every one in the body', () => {
    const error = refusal({ catalog: { voices: [{ id: 9001 } as never] } }) as SimError;
    expect(error.message).toBe('catalog.voices.0.name: The voices.0.name field is required.');
    expect(Object.keys((error.body as { errors: object }).errors)).toStrictEqual([
      'voices.0.name', 'voices.0.language_id', 'voices.0.gender', 'voices.0.preview_url', 'voices.0.accent', 'voices.0.age', 'voices.0.synthesizer_provider_id',
    ]);
  });

  it('names the option alone when the document is not an object', () => {
    const error = refusal({ catalog: 5 as never }) as SimError;
    expect(error.message).toBe(`catalog: ${String(error.body.message)}`);
    expect(Object.keys(error.body.errors as object)).toStrictEqual(['']);
  });
});
