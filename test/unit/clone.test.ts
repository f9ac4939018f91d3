/** `cloneData` (src/core/clone.ts): the copy a snapshot makes of its rows, as `structuredClone` made it. */
import { describe, expect, it } from 'vitest';
import { cloneData } from '../../src/core/clone.js';

describe('cloneData', () => {
  it('copies objects and arrays at every level, keeping values, key order and undefined values', () => {
    const value = { id: 1, name: 'Sales', tags: ['a', 'b'], settings: { voice: null, nested: [{ deep: [1, 2, { x: true }] }] }, gone: undefined };
    const copy = cloneData(value);
    expect(copy).toStrictEqual(value);
    expect(Object.keys(copy)).toEqual(['id', 'name', 'tags', 'settings', 'gone']);
    expect('gone' in copy).toBe(true);
    expect(copy).not.toBe(value);
    expect(copy.tags).not.toBe(value.tags);
    expect(copy.settings.nested[0]!.deep[2]).not.toBe(value.settings.nested[0]!.deep[2]);
    copy.settings.nested[0]!.deep.push(3);
    expect(value.settings.nested[0]!.deep).toHaveLength(3);
  });

  it('copies an object reached twice once, and keeps cycles, as structuredClone does', () => {
    const shared = { transcript: [{ role: 'assistant', text: 'Hi' }] };
    const rows = [{ id: 1, plan: shared }, { id: 2, plan: shared }];
    const copy = cloneData(rows);
    expect(copy[0]!.plan).toBe(copy[1]!.plan);
    expect(copy[0]!.plan).not.toBe(shared);
    expect(copy).toStrictEqual(structuredClone(rows));
    const cyclic: Record<string, unknown> = { id: 3 };
    cyclic.self = cyclic;
    const cycleCopy = cloneData(cyclic);
    expect(cycleCopy.self).toBe(cycleCopy);
    expect(cycleCopy).not.toBe(cyclic);
  });

  it('answers primitives as they are', () => {
    for (const value of [0, -0, 1.5, 'text', true, null, undefined, 10n]) expect(Object.is(cloneData(value), value)).toBe(true);
  });
});
