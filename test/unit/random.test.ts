import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/random.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A mixed run of draws, as a simulator makes them. */
function draws(random: SeededRandom): unknown[] {
  return [
    random.uuid(),
    random.int(1, 1000),
    random.faker.person.fullName(),
    random.next(),
    random.faker.phone.number(),
    random.uuid(),
    random.int(0, 9),
  ];
}

describe('SeededRandom', () => {
  it('draws the same sequence from the same seed', () => {
    expect(draws(new SeededRandom(7))).toEqual(draws(new SeededRandom(7)));
  });

  it('draws the values every earlier version drew from seed 7 (answers and state files depend on them)', () => {
    const random = new SeededRandom(7);
    expect([random.int(0, 1_000_000), random.int(0, 1_000_000), random.next(), random.uuid()]).toEqual([753535, 689370, 0.9176275781355798, 'e90fd022-d62c-4078-b4cf-bb84efcb448a']);
    expect(SeededRandom.derive(7, 'x', 3).int(0, 999)).toBe(176);
    expect(random.state).toEqual([60214690, 1605241473, 2264351590, 3618576897]);
  });

  it('draws the same uuids from the same seed', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const fromA = Array.from({ length: 20 }, () => a.uuid());
    const fromB = Array.from({ length: 20 }, () => b.uuid());
    expect(fromA).toEqual(fromB);
  });

  it('draws different sequences from different seeds', () => {
    const a = new SeededRandom(1);
    const b = new SeededRandom(2);
    expect(a.uuid()).not.toBe(b.uuid());
    expect(Array.from({ length: 10 }, () => a.int(0, 1_000_000))).not.toEqual(Array.from({ length: 10 }, () => b.int(0, 1_000_000)));
    expect(a.faker.person.fullName() + a.faker.person.fullName()).not.toBe(b.faker.person.fullName() + b.faker.person.fullName());
  });

  it('keeps its seed', () => {
    expect(new SeededRandom(99).seed).toBe(99);
  });

  it('produces RFC 4122 version-4 uuids', () => {
    const random = new SeededRandom(3);
    for (let i = 0; i < 1000; i++) expect(random.uuid()).toMatch(UUID_V4);
  });

  it('does not repeat a uuid over many draws', () => {
    const random = new SeededRandom(3);
    const seen = new Set(Array.from({ length: 10_000 }, () => random.uuid()));
    expect(seen.size).toBe(10_000);
  });

  it('draws integers within [min, max] and reaches both ends', () => {
    const random = new SeededRandom(11);
    const values = Array.from({ length: 5000 }, () => random.int(3, 8));
    expect(values.every((v) => Number.isInteger(v) && v >= 3 && v <= 8)).toBe(true);
    expect(new Set(values)).toEqual(new Set([3, 4, 5, 6, 7, 8]));
  });

  it('draws the only value of a one-value range', () => {
    const random = new SeededRandom(11);
    expect(Array.from({ length: 50 }, () => random.int(5, 5))).toEqual(Array(50).fill(5));
  });

  it('draws floats in [0, 1)', () => {
    const random = new SeededRandom(5);
    const values = Array.from({ length: 5000 }, () => random.next());
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(4900);
  });

  it('resumes the exact sequence from a saved state', () => {
    const random = new SeededRandom(21);
    random.uuid();
    random.faker.person.fullName();
    const state = random.state;
    const first = draws(random);
    random.state = state;
    expect(draws(random)).toEqual(first);
  });

  it('carries its position to another generator through the state', () => {
    const source = new SeededRandom(21);
    draws(source);
    const target = new SeededRandom(1000);
    target.state = source.state;
    expect(draws(target)).toEqual(draws(source));
  });

  it('describes its state as four 32-bit integers', () => {
    const random = new SeededRandom(8);
    random.uuid();
    const state = random.state;
    expect(state).toHaveLength(4);
    expect(state.every((n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 32)).toBe(true);
  });

  it('resumes the sequence from a state that went through JSON', () => {
    const random = new SeededRandom(8);
    draws(random);
    const saved = JSON.parse(JSON.stringify(random.state)) as typeof random.state;
    const first = draws(random);
    const resumed = new SeededRandom(0);
    resumed.state = saved;
    expect(draws(resumed)).toEqual(first);
  });

  it('hands out a copy of its state that does not move the generator when changed', () => {
    const random = new SeededRandom(8);
    const state = random.state;
    const expected = new SeededRandom(8).uuid();
    state[0] = 0;
    state[1] = 0;
    expect(random.uuid()).toBe(expected);
  });

  it('copies a state it is given, so later changes to that array do not move it', () => {
    const random = new SeededRandom(8);
    const state = random.state;
    const expected = random.uuid();
    random.state = state;
    state[2] = 12345;
    expect(random.uuid()).toBe(expected);
  });
});
